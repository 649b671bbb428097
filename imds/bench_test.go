package imds

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jonboulle/clockwork"
)

// benchServer is an endpoint with the fixtures published and no rate limit.
func benchServer(b *testing.B) *Server {
	b.Helper()
	s := New(Config{Metadata: quietMetadata{}, Clock: clockwork.NewRealClock()})
	for _, snap := range fixtureSnapshots() {
		s.PublishScope(snap)
	}
	return s
}

// BenchmarkGetDocument is the hot path: a VM's GET of its document, ten
// events, through every check.
func BenchmarkGetDocument(b *testing.B) {
	s := benchServer(b)
	benchHandler(b, s, eventsURL("2020-07-01"))
}

// BenchmarkGetDocumentNotModified is the ETag poll that finds no change.
func BenchmarkGetDocumentNotModified(b *testing.B) {
	s := benchServer(b)
	benchHandler(b, s, eventsURL("2020-07-01"), "If-None-Match", `"4"`)
}

// BenchmarkStaticBaseline writes the same bytes with the same headers and
// nothing else: what "the speed of a static file" means in this process.
func BenchmarkStaticBaseline(b *testing.B) {
	body := []byte(benchServerBody(b))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentTypeJSON)
		w.Header().Set("ETag", `"4"`)
		w.WriteHeader(http.StatusOK)
		w.Write(body)
	})
	benchHandler(b, h, eventsURL("2020-07-01"))
}

func benchServerBody(b *testing.B) string {
	rec := httptest.NewRecorder()
	benchServer(b).ServeHTTP(rec, benchRequest(eventsURL("2020-07-01")))
	if rec.Code != http.StatusOK {
		b.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

func benchRequest(target string, hdr ...string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, target, nil)
	r.RemoteAddr = addrWeb0 + ":40000"
	r.Header.Set("Metadata", "true")
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	return r
}

// benchHandler runs h on parallel requests to target, each goroutine with
// its own reused discardWriter, so that only the handler's allocations count.
func benchHandler(b *testing.B, h http.Handler, target string, hdr ...string) {
	r := benchRequest(target, hdr...)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := newDiscardWriter()
		for pb.Next() {
			w.reset()
			h.ServeHTTP(w, r)
			if w.status >= 400 {
				b.Errorf("status %d", w.status)
				return
			}
		}
	})
}
