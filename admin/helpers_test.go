package admin_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/internal/fabrictest"
)

const testToken = "s3cret-token"

// testEnv is the admin API over the real control plane, on an in-memory
// store and a fake clock, on a loopback listener, with a Client of it.
type testEnv struct {
	fab *fabric.Fabric
	// store counts the transactions and changes of the fabric, fleet the
	// calls of the API that parse a body or a query (spy_test.go).
	store  *spyStore
	fleet  *spyFleet
	clock  *clockwork.FakeClock
	server *httptest.Server
	client *admin.Client
	reg    *prometheus.Registry
	// requests counts the requests the server has answered.
	requests atomic.Int64
	// vms are the VMs made by mustMakeFleet, in name order.
	vms []*forewarn.VM
}

// mustStart starts a Server over a new control plane whose scopes get
// notice once a VM of theirs has asked for its events (enable), as a
// server's do, and closes it when the test ends.
func mustStart(tb testing.TB) *testEnv {
	tb.Helper()
	return mustStartWith(tb, testToken, fabric.Config{})
}

// mustStartEnabled starts a Server over a new control plane whose scopes
// have all enabled Scheduled Events (as serve --dev), so that events get
// notice.
func mustStartEnabled(tb testing.TB) *testEnv {
	tb.Helper()
	return mustStartWith(tb, testToken, fabric.Config{AlwaysEnabled: true})
}

// mustStartWith starts a Server with the given token over a control plane
// with cfg, its store, clock and replica filled in.
func mustStartWith(tb testing.TB, token string, cfg fabric.Config) *testEnv {
	tb.Helper()
	env := &testEnv{clock: clockwork.NewFakeClockAt(fabrictest.T0), reg: prometheus.NewRegistry()}
	cfg.Clock, cfg.StoreName, cfg.Replica.ID = env.clock, "memory", "replica-1"
	env.fab, env.store = spiedFabric(tb, cfg)
	env.fleet = &spyFleet{Fleet: env.fab}
	api := admin.NewServer(admin.Config{
		Fleet:      env.fleet,
		Token:      token,
		Gatherer:   env.reg,
		Registerer: env.reg,
		Logger:     slog.New(slog.NewTextHandler(tbWriter{tb}, nil)),
	})
	env.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		env.requests.Add(1)
		api.ServeHTTP(w, r)
	}))
	tb.Cleanup(env.server.Close)
	env.client = admin.NewClient(env.server.URL, token)
	return env
}

// enable has a VM of the scope ask for its events, which enables
// Scheduled Events for the scope: its events get notice from then on.
func (env *testEnv) enable(tb testing.TB, scope string) {
	tb.Helper()
	if err := env.fab.Metadata().Enable(tb.Context(), scope); err != nil {
		tb.Fatalf("enable %s: %v", scope, err)
	}
}

// toWholeSecond moves the clock on to the next whole second, so that a
// notice from now ends exactly: NotBefore is rounded up to a second.
func (env *testEnv) toWholeSecond() {
	now := env.clock.Now()
	env.clock.Advance(now.Truncate(time.Second).Add(time.Second).Sub(now))
}

// tbWriter sends log lines to the test's log.
type tbWriter struct{ tb testing.TB }

func (w tbWriter) Write(b []byte) (int, error) {
	w.tb.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// answer is a raw HTTP answer.
type answer struct {
	status int
	header http.Header
	body   string
}

// errorMessage returns the "error" field of a JSON error answer.
func (a answer) errorMessage(tb testing.TB) string {
	tb.Helper()
	if ct := a.header.Get("Content-Type"); ct != "application/json" {
		tb.Fatalf("Content-Type = %q, want application/json; body %s", ct, a.body)
	}
	var body struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal([]byte(a.body), &body); err != nil || body.Error == "" {
		tb.Fatalf("answer %d is not a JSON error: %q (%v)", a.status, a.body, err)
	}
	return body.Error
}

// idOf returns the "id" of a JSON answer: of the event, campaign or chaos
// rule it made.
func idOf(tb testing.TB, a answer) string {
	tb.Helper()
	var body struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(a.body), &body); err != nil || body.ID == "" {
		tb.Fatalf("answer %d %s has no id (%v)", a.status, a.body, err)
	}
	return body.ID
}

// request sends a raw request with the given token ("" for none) and body
// ("" for none) and returns the answer.
func (env *testEnv) request(tb testing.TB, method, path, token, body string, header ...string) answer {
	tb.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(tb.Context(), method, env.server.URL+path, r)
	if err != nil {
		tb.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := env.server.Client().Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// expectNoChange fails the test if the fleet changed since it had before
// changes (env.store.changes).
func (env *testEnv) expectNoChange(tb testing.TB, before int) {
	tb.Helper()
	if changes := env.store.changes(); changes != before {
		tb.Errorf("fleet changed: %d changes, want %d", changes, before)
	}
}

// mustJSON encodes v.
func mustJSON(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
