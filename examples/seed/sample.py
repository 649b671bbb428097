#!/usr/bin/env python3
# The Python sample of the Scheduled Events pages (../../../shared/seeds/),
# ported to Python 3 only where the language forces it: urllib2 became
# urllib.request, print became a function. The seed's typo "eventype" (a
# NameError in Python 2 as well) is corrected to "eventtype". The metadata
# URL may be overridden with METADATA_URL, for a forewarn that does not
# listen on 169.254.169.254:80.

import json
import os
import urllib.request
import socket
import sys

metadata_url = os.environ.get("METADATA_URL", "http://169.254.169.254/metadata/scheduledevents?api-version=2017-03-01")
headers = "{Metadata:true}"
this_host = socket.gethostname()

def get_scheduled_events():
   req = urllib.request.Request(metadata_url)
   req.add_header('Metadata', 'true')
   resp = urllib.request.urlopen(req)
   data = json.loads(resp.read())
   return data

def handle_scheduled_events(data):
    for evt in data['Events']:
        eventid = evt['EventId']
        status = evt['EventStatus']
        resources = evt['Resources']
        eventtype = evt['EventType']
        resourcetype = evt['ResourceType']
        notbefore = evt['NotBefore'].replace(" ","_")
        if this_host in resources:
            print("+ Scheduled Event. This host is scheduled for " + eventtype + " not before " + notbefore)
            # Add logic for handling events here

def main():
   data = get_scheduled_events()
   handle_scheduled_events(data)

if __name__ == '__main__':
  main()
  sys.exit(0)
