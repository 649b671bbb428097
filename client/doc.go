// Package client is a Go SDK for programs running inside a VM that read and
// approve Scheduled Events from the instance metadata service: Azure's own at
// 169.254.169.254, or forewarn's, which keeps the same wire contract.
//
// The package stands alone: it imports nothing of forewarn, so it works
// unchanged against the real service.
//
// # Endpoint and versions
//
// New takes its endpoint from WithEndpoint, else from the FOREWARN_ENDPOINT
// environment variable, else, with WithDiscovery, from the VM's DHCP lease,
// else DefaultEndpoint.
//
// A VM inside a virtual network reaches the service at 169.254.169.254. One
// outside a virtual network (classic VMs, cloud services) must ask its host,
// whose address the DHCP server hands out as option 245; Azure's sample for
// such VMs reads it from the lease. DiscoverEndpoint does the same: it reads
// dhclient lease files ("option unknown-245 a8:3f:81:10;") and
// systemd-networkd ones ("OPTION_245=A83F8110"), by default those of
// DefaultLeaseFiles, and turns the four bytes into "http://168.63.129.16".
// WithDiscovery makes New use it, falling back to DefaultEndpoint when no
// lease has the option.
//
// Scheduled Events are read with
// api-version 2020-07-01 unless WithAPIVersion says otherwise; instance
// metadata always with InstanceAPIVersion.
//
// # Requests
//
// Every request carries the header "Metadata: true" and, with the default
// HTTP client, never goes through a proxy: HTTP_PROXY and friends are
// ignored, since the metadata address must be reached directly. (A client
// given through WithHTTPClient is used as it is.) WithSourceAddr makes the
// default client connect from a chosen local address, so that one host can
// act as several VMs. The first read of the Scheduled Events document may
// take up to two minutes while the service enables itself for the VM, so it
// gets a long timeout (3 minutes); later requests a short one (10 seconds).
// See WithTimeouts.
//
// Connection errors, timeouts and the statuses 410, 429 and 5xx are retried
// with exponential backoff and jitter, honouring Retry-After; other 4xx are
// not. Get, Approve and Instance give up after a bounded number of attempts
// (WithRetry) and return the last error, an *APIError when the service
// answered. Watch never gives up: it retries until its context ends.
//
// # Watching
//
// Watch delivers every new document (every new DocumentIncarnation) once,
// the first one included. When the service marks its answers with
// "Forewarn-Long-Poll: true" (forewarn does, Azure does not), Watch holds a
// request open until the document changes (forewarn's long-poll extension);
// otherwise it polls every second (WithPollInterval) with If-None-Match and
// treats 304 Not Modified as "no change".
//
// # Decoding
//
// Decoding is liberal: DocumentIncarnation may be a number or a string;
// NotBefore may be RFC 1123 ("Mon, 19 Sep 2016 18:29:47 GMT", what the
// service sends) or RFC 3339, and "" decodes to the zero time (the event has
// started). DurationInSeconds is -1 ("unknown") when the field is absent, as
// it is before api-version 2020-07-01: absent and unknown mean the same thing
// to a caller. An Event encodes back to the wire form.
package client
