package admin_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/forewarn/forewarn/admin"
)

const testToken = "s3cret-token"

// testEnv is a Server over a fake fleet on a loopback listener, with a
// Client of it.
type testEnv struct {
	fleet  *fakeFleet
	server *httptest.Server
	client *admin.Client
	reg    *prometheus.Registry
}

// mustStart starts a Server over a new fake fleet and closes it when the
// test ends.
func mustStart(tb testing.TB) *testEnv {
	tb.Helper()
	return mustStartWith(tb, testToken)
}

// mustStartWith starts a Server with the given token.
func mustStartWith(tb testing.TB, token string) *testEnv {
	tb.Helper()
	env := &testEnv{fleet: newFakeFleet(), reg: prometheus.NewRegistry()}
	env.server = httptest.NewServer(admin.NewServer(admin.Config{
		Fleet:      env.fleet,
		Token:      token,
		Gatherer:   env.reg,
		Registerer: env.reg,
		Logger:     slog.New(slog.NewTextHandler(tbWriter{tb}, nil)),
	}))
	tb.Cleanup(env.server.Close)
	env.client = admin.NewClient(env.server.URL, token)
	return env
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

// expectNoChange fails the test if the fleet changed since before.
func (env *testEnv) expectNoChange(tb testing.TB, before int) {
	tb.Helper()
	if _, changes := env.fleet.counts(); changes != before {
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
