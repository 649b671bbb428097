package agent

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// httpGet fetches url and returns its status and body.
func httpGet(tb testing.TB, url string) (int, string) {
	tb.Helper()
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		tb.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode, string(b)
}

// metricsURL waits for the agent's metrics listener and returns its base URL.
func metricsURL(tb testing.TB, a *runningAgent) string {
	tb.Helper()
	waitFor(tb, "the metrics listener", func() bool { return a.MetricsAddr() != nil })
	return "http://" + a.MetricsAddr().String()
}

// sample returns the value of the metric line that starts with series,
// failing when there is none.
func sample(tb testing.TB, body, series string) float64 {
	tb.Helper()
	for _, l := range strings.Split(body, "\n") {
		if rest, ok := strings.CutPrefix(l, series+" "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err != nil {
				tb.Fatalf("metric %s: %v", series, err)
			}
			return v
		}
	}
	tb.Fatalf("no metric %s in:\n%s", series, body)
	return 0
}

// TestMetricsOverHTTP: after a Reboot handled end to end, /metrics shows
// the event seen, the hooks run, the approval and the hook latency, and
// /healthz answers 200.
func TestMetricsOverHTTP(t *testing.T) {
	s := mustStartServer(t, 60)
	if _, err := s.f.EnsureDefaultVM(s.ctx, "vm0", []string{"127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	hooks := filepath.Join(dir, "hooks.log")
	a := mustRunAgent(t, Config{Endpoint: s.url, VMName: "vm0", StateFile: filepath.Join(dir, "state.json"),
		MetricsAddr: "127.0.0.1:0",
		Hooks: map[EventType]Hooks{"Reboot": {OnScheduled: recordHook(hooks, "on_scheduled"),
			OnStarted: &Hook{Command: "exit 3"}, OnCompleted: recordHook(hooks, "on_completed")}},
		Approval: map[EventType]Policy{"Reboot": AfterHook}})
	base := metricsURL(t, a)
	if code, body := httpGet(t, base+"/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz: %d %s, want 200", code, body)
	}
	if _, err := s.f.Operate(s.ctx, "vm0", forewarn.OpRestart); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "on_completed", func() bool { return hookCount(t, hooks, "on_completed") == 1 })
	waitFor(t, "the on_completed metrics", func() bool {
		_, body := httpGet(t, base+"/metrics")
		return strings.Contains(body, `forewarn_agent_hook_runs_total{hook="on_completed",result="ok"}`)
	})
	code, body := httpGet(t, base+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	for series, want := range map[string]float64{
		`forewarn_agent_events_seen_total{type="Reboot"}`:                           1,
		`forewarn_agent_hook_runs_total{hook="on_scheduled",result="ok"}`:           1,
		`forewarn_agent_hook_runs_total{hook="on_started",result="failed"}`:         1,
		`forewarn_agent_hook_runs_total{hook="on_completed",result="ok"}`:           1,
		`forewarn_agent_approvals_total`:                                            1,
		`forewarn_agent_hook_latency_seconds_count{hook="on_scheduled"}`:            1,
		`forewarn_agent_hook_latency_seconds_count{hook="on_completed"}`:            1,
		`forewarn_agent_hook_latency_seconds_bucket{hook="on_scheduled",le="+Inf"}`: 1,
		`forewarn_agent_metadata_errors_total`:                                      0,
	} {
		if got := sample(t, body, series); got != want {
			t.Errorf("%s = %v, want %v", series, got, want)
		}
	}
	// on_completed ends after the 1 s of impact: its latency says so.
	if got := sample(t, body, `forewarn_agent_hook_latency_seconds_sum{hook="on_completed"}`); got <= 0 || got > 30 {
		t.Errorf("on_completed latency %vs, want in (0, 30]", got)
	}
	if code, body := httpGet(t, base+"/healthz"); code != http.StatusOK {
		t.Fatalf("/healthz after the event: %d %s, want 200", code, body)
	}
}

// TestHealthzFails: /healthz answers 503 once metadata requests fail in a
// row, against a service answering 500 and against a closed port.
func TestHealthzFails(t *testing.T) {
	t.Run("500", func(t *testing.T) {
		t.Parallel()
		checked := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select { // nothing fails until the test saw /healthz healthy
			case <-checked:
			case <-r.Context().Done():
				return
			}
			http.Error(w, "broken", http.StatusInternalServerError)
		}))
		t.Cleanup(srv.Close)
		a := mustRunAgent(t, Config{Endpoint: srv.URL, VMName: "vm0",
			StateFile: filepath.Join(t.TempDir(), "state.json"), MetricsAddr: "127.0.0.1:0"})
		base := metricsURL(t, a)
		if code, body := httpGet(t, base+"/healthz"); code != http.StatusOK {
			t.Fatalf("/healthz before any failure: %d %s, want 200", code, body)
		}
		close(checked)
		checkUnhealthy(t, base)
	})
	t.Run("closed port", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		a := mustRunAgent(t, Config{Endpoint: "http://" + addr, VMName: "vm0",
			StateFile: filepath.Join(t.TempDir(), "state.json"), MetricsAddr: "127.0.0.1:0"})
		checkUnhealthy(t, metricsURL(t, a))
	})
}

// checkUnhealthy waits for /healthz to fail and checks the error counter.
func checkUnhealthy(t *testing.T, base string) {
	t.Helper()
	var code int
	var body string
	waitFor(t, "/healthz to fail", func() bool {
		code, body = httpGet(t, base+"/healthz")
		return code != http.StatusOK
	})
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "in a row") {
		t.Fatalf("/healthz: %d %q, want 503 with the failures in a row", code, body)
	}
	_, m := httpGet(t, base+"/metrics")
	if n := sample(t, m, "forewarn_agent_metadata_errors_total"); n < unhealthyAfter {
		t.Fatalf("forewarn_agent_metadata_errors_total = %v, want at least %d", n, unhealthyAfter)
	}
}
