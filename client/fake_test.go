package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// waitTimeout bounds every wait of a test on a channel: generous, since it
// only fires when something is broken.
const waitTimeout = 10 * time.Second

// recorded is a request the fake received.
type recorded struct {
	Method string
	Path   string
	Query  url.Values
	Header http.Header
	Body   string
}

// injected is a failure the fake answers before serving normally.
type injected struct {
	status     int
	retryAfter string
	message    string
}

// fakeIMDS imitates SPEC.md's scheduledevents and compute endpoints: ETag,
// If-None-Match and 304, the long-poll extension and its header, JSON error
// bodies, and approvals that start events.
type fakeIMDS struct {
	t        testing.TB
	longPoll bool          // offer and honour long-poll
	hold     time.Duration // longest hold of a long-poll (stands in for timeout_sec)

	mu          sync.Mutex
	srv         *httptest.Server
	incarnation int
	events      []string // raw JSON of each event
	failures    []injected
	changed     chan struct{} // closed and replaced at every change
	requests    []recorded

	seen        chan recorded // every scheduledevents GET, after it is answered
	notModified chan struct{} // every 304 sent
}

// newFake starts a fake on loopback, stopped at cleanup.
func newFake(tb testing.TB, longPoll bool) *fakeIMDS {
	tb.Helper()
	f := &fakeIMDS{t: tb, longPoll: longPoll, hold: 50 * time.Millisecond, incarnation: 1,
		changed: make(chan struct{}), seen: make(chan recorded, 10000), notModified: make(chan struct{}, 10000)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("listen: %v", err)
	}
	f.start(ln)
	tb.Cleanup(f.stop)
	return f
}

// URL is the fake's base URL; it stays the same across restarts.
func (f *fakeIMDS) URL() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.srv.URL
}

// start serves on ln.
func (f *fakeIMDS) start(ln net.Listener) {
	srv := httptest.NewUnstartedServer(f)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	f.mu.Lock()
	f.srv = srv
	f.mu.Unlock()
}

// stop closes the listener and every connection, as a crash would.
func (f *fakeIMDS) stop() {
	f.mu.Lock()
	srv := f.srv
	f.mu.Unlock()
	srv.Listener.Close()
	srv.CloseClientConnections()
	srv.Close()
}

// restart reopens the fake on its old address once stopped.
func (f *fakeIMDS) restart() {
	f.t.Helper()
	addr := strings.TrimPrefix(f.URL(), "http://")
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		f.t.Fatalf("relisten on %s: %v", addr, err)
	}
	f.start(ln)
}

// setEvents replaces the events and bumps the incarnation.
func (f *fakeIMDS) setEvents(events ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = events
	f.bumpLocked()
}

// bump changes the incarnation alone.
func (f *fakeIMDS) bump() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.bumpLocked()
}

func (f *fakeIMDS) bumpLocked() {
	f.incarnation++
	close(f.changed)
	f.changed = make(chan struct{})
}

// fail queues failures answered, in order, before normal service.
func (f *fakeIMDS) fail(failures ...injected) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures = append(f.failures, failures...)
}

// recorded returns the requests received so far.
func (f *fakeIMDS) recorded() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.requests...)
}

// snapshot returns the incarnation, the document and the change channel.
func (f *fakeIMDS) snapshot() (int, string, chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	doc := fmt.Sprintf(`{"DocumentIncarnation":%d,"Events":[%s]}`, f.incarnation, strings.Join(f.events, ","))
	return f.incarnation, doc, f.changed
}

// ServeHTTP answers like SPEC.md's endpoint.
func (f *fakeIMDS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := f.record(r)
	if r.Header.Get("Metadata") != "true" {
		writeError(w, http.StatusBadRequest, "Bad request. Required metadata header not specified")
		return
	}
	if f.injectFailure(w) {
		return
	}
	switch {
	case r.URL.Path == scheduledEventsPath && r.Method == http.MethodGet:
		f.serveDocument(w, r)
		notify(f.seen, rec)
	case r.URL.Path == scheduledEventsPath && r.Method == http.MethodPost:
		f.serveApproval(w, rec)
	case r.URL.Path == computePath && r.Method == http.MethodGet:
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		io.WriteString(w, computeJSON)
	default:
		writeError(w, http.StatusNotFound, "not found")
	}
}

// record stores r and returns its record.
func (f *fakeIMDS) record(r *http.Request) recorded {
	body, _ := io.ReadAll(r.Body)
	rec := recorded{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Body: string(body)}
	f.mu.Lock()
	f.requests = append(f.requests, rec)
	f.mu.Unlock()
	return rec
}

// injectFailure answers the next queued failure, if any.
func (f *fakeIMDS) injectFailure(w http.ResponseWriter) bool {
	f.mu.Lock()
	if len(f.failures) == 0 {
		f.mu.Unlock()
		return false
	}
	fail := f.failures[0]
	f.failures = f.failures[1:]
	f.mu.Unlock()
	if fail.retryAfter != "" {
		w.Header().Set("Retry-After", fail.retryAfter)
	}
	writeError(w, fail.status, fail.message)
	return true
}

// serveDocument answers a GET, holding a long-poll until a change.
func (f *fakeIMDS) serveDocument(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	longPoll := f.longPoll && q.Get("wait_for_change") == "true" && q.Get("last_etag") != ""
	if longPoll {
		f.holdUntilChange(r.Context(), strings.Trim(q.Get("last_etag"), `"`))
	}
	incarnation, doc, _ := f.snapshot()
	etag := fmt.Sprintf(`"%d"`, incarnation)
	if f.longPoll {
		w.Header().Set(longPollHeader, "true")
	}
	w.Header().Set("ETag", etag)
	if !longPoll && r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		notify(f.notModified, struct{}{})
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	io.WriteString(w, doc)
}

// holdUntilChange waits until the incarnation differs from lastETag, the hold time
// passes, or the request ends.
func (f *fakeIMDS) holdUntilChange(ctx context.Context, lastETag string) {
	timer := time.NewTimer(f.hold)
	defer timer.Stop()
	for {
		incarnation, _, changed := f.snapshot()
		if fmt.Sprint(incarnation) != lastETag {
			return
		}
		select {
		case <-changed:
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// serveApproval starts the named events (all of them in this fake).
func (f *fakeIMDS) serveApproval(w http.ResponseWriter, rec recorded) {
	var body struct{ StartRequests []struct{ EventId string } }
	if err := json.Unmarshal([]byte(rec.Body), &body); err != nil || len(body.StartRequests) == 0 {
		writeError(w, http.StatusBadRequest, "StartRequests missing")
		return
	}
	f.bump()
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, "{}")
}

// notify sends v unless ch is full (tests read what they need).
func notify[T any](ch chan T, v T) {
	select {
	case ch <- v:
	default:
	}
}

// writeError writes SPEC.md's error body.
func writeError(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]string{"error": message})
	w.Write(b)
}

// computeJSON is a compute object as the service writes it.
const computeJSON = `{"location":"westeurope","name":"web-0","osProfile":{"computerName":"web-0-host"},` +
	`"platformFaultDomain":"1","platformUpdateDomain":"3","priority":"Spot",` +
	`"resourceId":"/subscriptions/x/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/web-0",` +
	`"tags":"env:prod;team:web","vmId":"02aab8a4-74ef-476e-8182-f6d2ba4166a6","vmScaleSetName":"","zone":"2"}`

// recordingClock returns from every wait at once and remembers how long it
// was asked to wait.
type recordingClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

func (c *recordingClock) Now() time.Time { return c.now }

func (c *recordingClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, d)
	ch := make(chan time.Time, 1)
	ch <- c.now.Add(d)
	return ch
}

func (c *recordingClock) recordedWaits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

// logCapture is a slog handler that sends each record's message and
// "error" attribute to a channel.
type logCapture struct{ records chan string }

func newLogCapture() *logCapture { return &logCapture{records: make(chan string, 10000)} }

func (h *logCapture) Enabled(context.Context, slog.Level) bool { return true }
func (h *logCapture) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *logCapture) WithGroup(string) slog.Handler            { return h }
func (h *logCapture) Handle(_ context.Context, r slog.Record) error {
	line := r.Message
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "error" {
			line += ": " + a.Value.String()
		}
		return true
	})
	select {
	case h.records <- line:
	default:
	}
	return nil
}

// waitFor receives from ch or fails the test after waitTimeout.
func waitFor[T any](tb testing.TB, ch <-chan T, what string) T {
	tb.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitTimeout):
		tb.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}

// newHandlerServer serves h on loopback until the test ends and returns
// its URL.
func newHandlerServer(tb testing.TB, h http.Handler) string {
	tb.Helper()
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return srv.URL
}

// slogLogger logs to h.
func slogLogger(h slog.Handler) *slog.Logger { return slog.New(h) }
