package client

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// TestNoProxy reaches the fake through 0.0.0.0, which Go's proxy rules do
// not exempt as they exempt loopback names, with HTTP_PROXY naming a proxy
// that would answer 502: the request must go straight to the fake.
func TestNoProxy(t *testing.T) {
	var proxied atomic.Int32
	proxy := newHandlerServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		http.Error(w, "proxied", http.StatusBadGateway)
	}))
	for _, name := range []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"} {
		t.Setenv(name, proxy)
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")

	f := newFake(t, false)
	direct := strings.Replace(f.URL(), "127.0.0.1", "0.0.0.0", 1)
	c := New(WithEndpoint(direct), WithRetry(1, 0))
	if _, err := c.Get(testContext(t)); err != nil {
		t.Fatalf("Get with HTTP_PROXY set: %v", err)
	}
	if _, err := c.Instance(testContext(t)); err != nil {
		t.Fatalf("Instance with HTTP_PROXY set: %v", err)
	}
	if n := proxied.Load(); n != 0 {
		t.Errorf("%d requests went through the proxy", n)
	}
	if tr, ok := c.httpClient.Transport.(*http.Transport); !ok || tr.Proxy != nil {
		t.Error("default transport has a proxy function")
	}
}
