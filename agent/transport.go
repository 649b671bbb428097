package agent

import (
	"net/http"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/forewarn/forewarn/client"
)

// unhealthyAfter is how many failed metadata requests in a row make
// /healthz fail.
const unhealthyAfter = 5

// countingTransport counts the metadata requests that fail (no answer, or
// a status of 400 or more) and remembers how many failed in a row.
type countingTransport struct {
	next   http.RoundTripper
	errors prometheus.Counter
	inRow  atomic.Int64
}

// RoundTrip sends the request and counts a failure. A request whose
// context ended (a stop, an abandoned long-poll) is no failure.
func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	switch {
	case err != nil && req.Context().Err() != nil:
	case err != nil || resp.StatusCode >= 400:
		t.errors.Inc()
		t.inRow.Add(1)
	default:
		t.inRow.Store(0)
	}
	return resp, err
}

// instrument returns a copy of hc (or of a proxy-less default when nil,
// which dials from source if it is valid) whose transport is counted.
func instrument(hc *http.Client, source netip.Addr, errs prometheus.Counter) (*http.Client, *countingTransport) {
	var c http.Client
	if hc != nil {
		c = *hc
	} else {
		c = http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	next := c.Transport
	if next == nil {
		next = &http.Transport{Proxy: nil, DialContext: client.DialFrom(source), MaxIdleConnsPerHost: 4,
			IdleConnTimeout: 90 * time.Second}
	}
	t := &countingTransport{next: next, errors: errs}
	c.Transport = t
	return &c, t
}
