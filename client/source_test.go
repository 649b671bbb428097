package client

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// newRemoteAddrServer serves an empty document and records the source
// address of each request.
func newRemoteAddrServer(t *testing.T) (*httptest.Server, *atomic.Value) {
	t.Helper()
	var last atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		last.Store(host)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"DocumentIncarnation":1,"Events":[]}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &last
}

// TestSourceAddr: with WithSourceAddr the requests leave from the chosen
// loopback address (Linux routes all of 127/8 to lo); without it, from the
// one the system picks.
func TestSourceAddr(t *testing.T) {
	srv, last := newRemoteAddrServer(t)
	for _, tc := range []struct {
		opts []Option
		want string
	}{
		{[]Option{WithSourceAddr(netip.MustParseAddr("127.0.0.7"))}, "127.0.0.7"},
		{[]Option{WithSourceAddr(netip.MustParseAddr("127.0.0.8"))}, "127.0.0.8"},
		{[]Option{WithSourceAddr(netip.Addr{})}, "127.0.0.1"},
		{nil, "127.0.0.1"},
	} {
		c := New(append(tc.opts, WithEndpoint(srv.URL), WithRetry(1, 0))...)
		if _, err := c.Get(testContext(t)); err != nil {
			t.Fatalf("want %s: %v", tc.want, err)
		}
		if got := last.Load(); got != tc.want {
			t.Errorf("request came from %v, want %s", got, tc.want)
		}
	}
}

// TestSourceAddrNotOnHost: an address the host does not own, or one of
// another family than the endpoint's, fails the request at once with the
// dial error, which names it: no retry can make it work.
func TestSourceAddrNotOnHost(t *testing.T) {
	srv, _ := newRemoteAddrServer(t)
	for _, addr := range []string{"192.0.2.1", "::1"} {
		c := New(WithEndpoint(srv.URL), WithSourceAddr(netip.MustParseAddr(addr)), WithRetry(5, time.Second),
			WithTimeouts(2*time.Second, 2*time.Second))
		_, err := c.Get(testContext(t))
		if !errors.Is(err, ErrSourceAddr) || !strings.Contains(err.Error(), "connect from source address "+addr) ||
			strings.Contains(err.Error(), "giving up after") {
			t.Errorf("err = %v, want ErrSourceAddr naming %s, not retried", err, addr)
		}
	}
}

// TestSourceAddrWithHTTPClient: WithSourceAddr with WithHTTPClient is
// refused at the first request, which is not sent.
func TestSourceAddrWithHTTPClient(t *testing.T) {
	srv, last := newRemoteAddrServer(t)
	c := New(WithEndpoint(srv.URL), WithHTTPClient(&http.Client{}),
		WithSourceAddr(netip.MustParseAddr("127.0.0.7")), WithRetry(5, time.Millisecond))
	if _, err := c.Get(testContext(t)); !errors.Is(err, ErrConflictingOptions) {
		t.Fatalf("Get: err = %v, want ErrConflictingOptions", err)
	}
	if err := c.Watch(testContext(t), func(*Document) error { return nil }); !errors.Is(err, ErrConflictingOptions) {
		t.Fatalf("Watch: err = %v, want ErrConflictingOptions", err)
	}
	if got := last.Load(); got != nil {
		t.Errorf("a request was sent, from %v", got)
	}
}

func TestParseSourceAddr(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{"127.0.0.2", ""},
		{"::1", ""},
		{"0.0.0.0", `"0.0.0.0" is no address of one host`},
		{"::", `"::" is no address of one host`},
		{"127.0.0.2:80", `"127.0.0.2:80": want an IP address of this host`},
		{"nonsense", `"nonsense": want an IP address of this host`},
	} {
		_, err := ParseSourceAddr(tc.in)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("ParseSourceAddr(%q) = %v, want %q", tc.in, err, tc.err)
		}
	}
}

// TestWatchSourceAddrNotOnHost: Watch gives up at once on a source address
// the host cannot connect from, which no retry mends.
func TestWatchSourceAddrNotOnHost(t *testing.T) {
	srv, _ := newRemoteAddrServer(t)
	c := New(WithEndpoint(srv.URL), WithSourceAddr(netip.MustParseAddr("192.0.2.1")))
	err := c.Watch(testContext(t), func(*Document) error { return nil })
	if !errors.Is(err, ErrSourceAddr) {
		t.Errorf("Watch = %v, want ErrSourceAddr", err)
	}
}
