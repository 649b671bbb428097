package imds

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/forewarn/forewarn"
)

var (
	update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")
	// engine is the HTTP engine of the test envs: fasthttp, as serve's
	// metadata listener, or nethttp, as forewarntest and the other
	// packages' tests serve the endpoint (scripts/test.sh runs both).
	engine = flag.String("engine", "fasthttp", "the HTTP engine of the test envs: fasthttp or nethttp")
)

// testLimits are the envs' fasthttp limits: serve's.
var testLimits = Limits{HeaderTimeout: 5 * time.Second, BodyTimeout: 10 * time.Second,
	IdleTimeout: 120 * time.Second, MaxHeaderBytes: 16 << 10}

// The source addresses of the test VMs; Linux routes all of 127.0.0.0/8 to
// the loopback device.
const (
	addrWeb0    = "127.0.0.2"
	addrWeb1    = "127.0.0.3"
	addrDB0     = "127.0.0.4"
	addrPool0   = "127.0.0.5"
	addrUnknown = "127.0.0.99"
)

// epoch is the fake clock's start and the creation time of the fixtures.
var epoch = time.Date(2016, 9, 19, 18, 0, 0, 0, time.UTC)

// fakeMetadata is a forewarn.Metadata that records its calls.
type fakeMetadata struct {
	mu        sync.Mutex
	approvals []approval
	enabled   []string
	// known maps the event ids Approve accepts to their scope, vmScope
	// the VMs to theirs.
	known, vmScope map[forewarn.Key]forewarn.Key
	// approveErr and enableErr, if set, are returned by every call.
	approveErr, enableErr error
	// hold, if set, is called by Enable, as the first-call delay: it may
	// block until ctx ends.
	hold func(ctx context.Context)
}

type approval struct {
	vm  string
	ids []string
}

var _ forewarn.Metadata = (*fakeMetadata)(nil)

func (m *fakeMetadata) Approve(_ context.Context, vm string, ids []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.approveErr != nil {
		return m.approveErr
	}
	for _, id := range ids {
		if scope, ok := m.known[forewarn.KeyOf(id)]; !ok || scope != m.vmScope[forewarn.KeyOf(vm)] {
			return forewarn.Errorf(forewarn.ErrInvalid, "event %s is not in the document of VM %s", id, vm)
		}
	}
	m.approvals = append(m.approvals, approval{vm: vm, ids: ids})
	return nil
}

func (m *fakeMetadata) Enable(ctx context.Context, scope string) error {
	m.mu.Lock()
	m.enabled = append(m.enabled, scope)
	hold, err := m.hold, m.enableErr
	m.mu.Unlock()
	if hold != nil {
		hold(ctx)
		if err == nil {
			err = ctx.Err()
		}
	}
	return err
}

func (m *fakeMetadata) setApproveErr(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.approveErr = err
}

func (m *fakeMetadata) setEnableErr(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.enableErr = err
}

func (m *fakeMetadata) approvalsMade() []approval {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]approval(nil), m.approvals...)
}

func (m *fakeMetadata) enabledScopes() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.enabled...)
}

// env is a Server behind a real loopback listener, with a fake clock and a
// fake control plane, and the fixture scopes published.
type env struct {
	srv *Server
	url string
	// close closes the listener and waits for the handlers to return.
	close func()
	clock *clockwork.FakeClock
	meta  *fakeMetadata
	reg   *prometheus.Registry

	mu      sync.Mutex
	clients map[string]*http.Client
}

// envOption changes the Config of a test env.
type envOption func(*Config)

func withRateLimit(n float64) envOption { return func(c *Config) { c.RateLimit = n } }

func withRand(fn func() float64) envOption { return func(c *Config) { c.Rand = fn } }

// mustStartEnv starts a Server on 127.0.0.1:0 with the fixtures published.
func mustStartEnv(tb testing.TB, opts ...envOption) *env {
	tb.Helper()
	e := &env{
		clock:   clockwork.NewFakeClockAt(epoch),
		meta:    &fakeMetadata{known: map[forewarn.Key]forewarn.Key{}, vmScope: map[forewarn.Key]forewarn.Key{}},
		reg:     prometheus.NewRegistry(),
		clients: map[string]*http.Client{},
	}
	cfg := Config{Metadata: e.meta, Clock: e.clock, Registerer: e.reg, Logger: testLogger(tb)}
	for _, o := range opts {
		o(&cfg)
	}
	e.srv = New(cfg)
	for _, snap := range fixtureSnapshots() {
		e.publish(snap)
	}
	e.listen(tb, cfg.Logger)
	tb.Cleanup(func() {
		e.srv.Shutdown()
		e.mu.Lock()
		for _, c := range e.clients {
			c.CloseIdleConnections()
		}
		e.mu.Unlock()
		e.close()
	})
	return e
}

// listen serves e.srv on a loopback listener, with the engine the -engine
// flag names.
func (e *env) listen(tb testing.TB, log *slog.Logger) {
	switch *engine {
	case "nethttp":
		ts := httptest.NewServer(e.srv)
		e.url, e.close = ts.URL, ts.Close
	case "fasthttp":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		fs := e.srv.FastServer(testLimits, log)
		served := make(chan struct{})
		go func() {
			defer close(served)
			_ = fs.Serve(ln)
		}()
		e.url = "http://" + ln.Addr().String()
		var once sync.Once
		e.close = func() {
			once.Do(func() {
				_ = fs.Shutdown()
				<-served
			})
		}
	default:
		tb.Fatalf("-engine=%s: want fasthttp or nethttp", *engine)
	}
}

// publish publishes a snapshot and tells the fake control plane its
// events and VMs.
func (e *env) publish(snap *forewarn.ScopeSnapshot) {
	e.meta.mu.Lock()
	scope := forewarn.KeyOf(snap.Scope.Name)
	for _, ev := range snap.Events {
		e.meta.known[forewarn.KeyOf(ev.ID)] = scope
	}
	for _, vm := range snap.VMs {
		e.meta.vmScope[forewarn.KeyOf(vm.Name)] = scope
	}
	e.meta.mu.Unlock()
	e.srv.PublishScope(snap)
}

// client returns an HTTP client whose connections come from src.
func (e *env) client(src string) *http.Client {
	e.mu.Lock()
	defer e.mu.Unlock()
	if c, ok := e.clients[src]; ok {
		return c
	}
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
	c := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	e.clients[src] = c
	return c
}

// answer is a response read in full.
type answer struct {
	status int
	header http.Header
	body   string
}

// call sends a request from src and reads the answer. hdr holds header
// name/value pairs; a Metadata header is not added.
func (e *env) call(tb testing.TB, ctx context.Context, src, method, target string, body io.Reader, hdr ...string) (answer, error) {
	tb.Helper()
	req, err := http.NewRequestWithContext(ctx, method, e.url+target, body)
	if err != nil {
		tb.Fatalf("new request: %v", err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Add(hdr[i], hdr[i+1])
	}
	resp, err := e.client(src).Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, err
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: string(b)}, nil
}

// do is call with a background context that fails the test on a transport
// error.
func (e *env) do(tb testing.TB, src, method, target string, body io.Reader, hdr ...string) answer {
	tb.Helper()
	a, err := e.call(tb, context.Background(), src, method, target, body, hdr...)
	if err != nil {
		tb.Fatalf("%s %s from %s: %v", method, target, src, err)
	}
	return a
}

// get sends a GET with the Metadata header from src.
func (e *env) get(tb testing.TB, src, target string, hdr ...string) answer {
	tb.Helper()
	return e.do(tb, src, http.MethodGet, target, nil, append([]string{"Metadata", "true"}, hdr...)...)
}

// post sends a POST with the Metadata header from src.
func (e *env) post(tb testing.TB, src, target, body string, hdr ...string) answer {
	tb.Helper()
	return e.do(tb, src, http.MethodPost, target, strings.NewReader(body), append([]string{"Metadata", "true"}, hdr...)...)
}

// waitHeld blocks until n long-polls wait on the fake clock.
func (e *env) waitHeld(tb testing.TB, n int) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.clock.BlockUntilContext(ctx, n); err != nil {
		tb.Fatalf("waiting for %d held long-polls: %v", n, err)
	}
}

// async runs fn in a goroutine and returns a channel with its answer.
func async(fn func() answer) <-chan answer {
	ch := make(chan answer, 1)
	go func() { ch <- fn() }()
	return ch
}

// receive waits for an answer from async.
func receive(tb testing.TB, ch <-chan answer) answer {
	tb.Helper()
	select {
	case a := <-ch:
		return a
	case <-time.After(10 * time.Second):
		tb.Fatal("no answer within 10s")
		return answer{}
	}
}

// checkAnswer compares status and exact body.
func checkAnswer(tb testing.TB, a answer, status int, body string) {
	tb.Helper()
	if a.status != status || a.body != body {
		tb.Errorf("got %d %s\nwant %d %s", a.status, a.body, status, body)
	}
}

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(tb testing.TB, name, got string) {
	tb.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			tb.Fatalf("update golden: %v", err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("read golden (run go test -update to create it): %v", err)
	}
	if got != string(want) {
		tb.Errorf("%s differs from the golden file\ngot:  %s\nwant: %s", name, got, want)
	}
}

// eventsURL is the scheduledevents path with an api-version and more query.
func eventsURL(version string, more ...string) string {
	u := pathEvents + "?api-version=" + version
	for _, m := range more {
		u += "&" + m
	}
	return u
}

// logWriter sends log lines to the test log.
type logWriter struct{ tb testing.TB }

func (w logWriter) Write(p []byte) (int, error) {
	w.tb.Log(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

func testLogger(tb testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(logWriter{tb}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// mustContain fails unless body contains part.
func mustContain(tb testing.TB, body, part string) {
	tb.Helper()
	if !strings.Contains(body, part) {
		tb.Errorf("body %s does not contain %s", body, part)
	}
}
