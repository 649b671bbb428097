package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/forewarn/forewarn/client"
)

// errSeen ends a watch once the document awaited has come.
var errSeen = errors.New("seen")

// vmHTTPClient returns an HTTP client whose requests come from addr, a
// loopback address: the metadata endpoint takes its caller for the VM that
// owns addr.
func vmHTTPClient(addr string) *http.Client {
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(addr)}, Timeout: waitLimit}
	return &http.Client{
		Transport: &http.Transport{DialContext: dialer.DialContext, DisableKeepAlives: true},
		Timeout:   waitLimit,
	}
}

// vmClient returns a metadata client that calls from addr.
func vmClient(srv *testServer, addr string) *client.Client {
	return client.New(client.WithEndpoint(srv.metadataURL), client.WithHTTPClient(vmHTTPClient(addr)))
}

// awaitVMDocument watches the document of the VM that owns addr until ok
// holds for it, and returns that document; it fails the test if none
// comes within waitLimit.
func awaitVMDocument(t *testing.T, srv *testServer, addr string, ok func(*client.Document) bool) *client.Document {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	var last, seen *client.Document
	err := vmClient(srv, addr).Watch(ctx, func(doc *client.Document) error {
		last = doc
		if ok(doc) {
			seen = doc
			return errSeen
		}
		return nil
	})
	if seen == nil {
		t.Fatalf("the document of %s never came as awaited (watch: %v); last: %+v", addr, err, last)
	}
	return seen
}

// eventually calls ok until it holds, failing the test if it does not
// within waitLimit. It is for what a server does on its own, such as the
// outcome of a command it runs, that no request can wait for.
func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	limit := time.After(waitLimit)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !ok() {
		select {
		case <-tick.C:
		case <-limit:
			t.Fatalf("%s: did not happen within %v", what, waitLimit)
		}
	}
}
