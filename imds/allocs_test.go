package imds

import (
	"net"
	"net/http"
	"testing"

	"github.com/jonboulle/clockwork"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"
)

// TestGetAllocatesNothing checks that a warm GET of the document allocates
// nothing (issue 6), on net/http and on fasthttp (issue 18), with metrics
// and the rate limit on as a server runs:
// a full answer, a 304, and a long-poll whose last_etag is out of date (it
// answers at once).
func TestGetAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates, and sync.Pool drops items under it")
	}
	s := New(Config{Metadata: quietMetadata{}, Clock: clockwork.NewRealClock(),
		RateLimit: 1e9, Registerer: prometheus.NewRegistry()})
	for _, snap := range fixtureSnapshots() {
		s.PublishScope(snap)
	}
	for _, c := range []struct {
		name   string
		target string
		hdr    []string
		status int
	}{
		{"document", eventsURL("2020-07-01"), nil, http.StatusOK},
		{"oldest version", eventsURL("2017-03-01"), nil, http.StatusOK},
		{"not modified", eventsURL("2020-07-01"), []string{"If-None-Match", `"4"`}, http.StatusNotModified},
		{"stale long-poll", eventsURL("2020-07-01", "wait_for_change=true", `last_etag="3"`), nil, http.StatusOK},
	} {
		t.Run("fasthttp "+c.name, func(t *testing.T) {
			ctx := fastRequest(c.target, c.hdr...)
			serve := func() {
				ctx.Response.Reset()
				s.ServeFastHTTP(ctx)
			}
			serve()
			if got := ctx.Response.StatusCode(); got != c.status {
				t.Fatalf("status %d, want %d", got, c.status)
			}
			if n := testing.AllocsPerRun(100, serve); n != 0 {
				t.Errorf("%v allocations per request, want 0", n)
			}
		})
		t.Run(c.name, func(t *testing.T) {
			r := benchRequest(c.target, c.hdr...)
			w := newDiscardWriter()
			serve := func() {
				w.reset()
				s.ServeHTTP(w, r)
			}
			serve() // warm: renders the document, creates the series
			if w.status != c.status {
				t.Fatalf("status %d, want %d", w.status, c.status)
			}
			if n := testing.AllocsPerRun(100, serve); n != 0 {
				t.Errorf("%v allocations per request, want 0", n)
			}
			if w.status != c.status {
				t.Errorf("status %d after the runs, want %d", w.status, c.status)
			}
		})
	}
}

// fastRequest is a GET of target from web-0 as fasthttp gives it to its
// handler, with the Metadata header and the header pairs hdr.
func fastRequest(target string, hdr ...string) *fasthttp.RequestCtx {
	var req fasthttp.Request
	req.SetRequestURI(target)
	req.Header.SetMethod(http.MethodGet)
	req.Header.SetHost("169.254.169.254")
	req.Header.Set("Metadata", "true")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	ctx := new(fasthttp.RequestCtx)
	ctx.Init(&req, &net.TCPAddr{IP: net.ParseIP(addrWeb0), Port: 40000}, nil)
	return ctx
}
