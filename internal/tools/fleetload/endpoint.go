package main

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"time"
)

// endpointAddr is the IP and port of a metadata endpoint's URL: the load
// dials it itself, and finds the server's sockets by it.
func endpointAddr(endpoint string) (netip.AddrPort, error) {
	if endpoint == "" {
		return netip.AddrPort{}, errors.New("-url is required: the metadata endpoint, http://IP:PORT")
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Scheme != "http" {
		return netip.AddrPort{}, fmt.Errorf("-url %q: want http://IP:PORT", endpoint)
	}
	ap, err := netip.ParseAddrPort(u.Host)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("-url %q: want an IP address and a port: %v", endpoint, err)
	}
	return ap, nil
}

// dialFrom returns a dialer whose connections come from addr: the endpoint
// knows its caller by the connection's source address.
func dialFrom(addr netip.Addr) *net.Dialer {
	return &net.Dialer{LocalAddr: net.TCPAddrFromAddrPort(netip.AddrPortFrom(addr, 0)), Timeout: 10 * time.Second}
}

// eventsPath is the document's path and api-version.
func eventsPath(apiVersion string) string {
	return "/metadata/scheduledevents?api-version=" + url.QueryEscape(apiVersion)
}
