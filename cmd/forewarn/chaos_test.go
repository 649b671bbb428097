package main

import (
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/forewarn/forewarn"
)

// TestChaos makes the metadata endpoint fail for one VM, then for one
// scope, and ends the faults.
func TestChaos(t *testing.T) {
	srv := startServer(t)
	srv.setEnv(t)
	mustRun(t, "vm", "create", "other", "--scope", "default", "--address", "127.0.20.3")
	mustRun(t, "vm", "create", "alone", "--address", "127.0.20.4")
	host, other, alone := "127.0.0.1", "127.0.20.3", "127.0.20.4"

	out := mustRun(t, "chaos", "add", "--vm", srv.hostVM, "--status", "410", "--fraction", "1", "--for", "10m")
	rs := rows(t, out)
	if want := []string{"ID", "TARGET", "STATUS", "DELAY", "FRACTION", "UNTIL"}; !slices.Equal(rs[0], want) {
		t.Errorf("chaos header = %q, want %q", rs[0], want)
	}
	if len(rs) != 2 || !slices.Equal(rs[1][1:5], []string{"vm:" + srv.hostVM, "410", "-", "1"}) {
		t.Fatalf("chaos add:\n%s", out)
	}
	vmRule := rs[1][0]
	wantStatus(t, srv, host, http.StatusGone)
	wantStatus(t, srv, other, http.StatusOK)

	scopeRule := mustJSON[forewarn.ChaosRule](t, "chaos", "add", "--scope", "default", "--status", "500", "--for", "1h", "-o", "json")
	if scopeRule.Scope != "default" || scopeRule.Status != 500 || scopeRule.Fraction != 1 || scopeRule.Until.Sub(scopeRule.CreatedAt).Hours() != 1 {
		t.Errorf("chaos add --scope -o json = %+v", scopeRule)
	}
	wantStatus(t, srv, other, http.StatusInternalServerError)
	wantStatus(t, srv, alone, http.StatusOK)

	rules := mustJSON[[]forewarn.ChaosRule](t, "chaos", "list", "-o", "json")
	if len(rules) != 2 || rules[0].ID != vmRule || rules[1].ID != scopeRule.ID {
		t.Errorf("chaos list -o json = %+v", rules)
	}
	if out := mustRun(t, "chaos", "delete", scopeRule.ID); out != "deleted chaos rule "+scopeRule.ID+"\n" {
		t.Errorf("chaos delete = %q", out)
	}
	wantStatus(t, srv, other, http.StatusOK)
	mustRun(t, "chaos", "delete", vmRule)
	wantStatus(t, srv, host, http.StatusOK)
	if rs := rows(t, mustRun(t, "chaos", "list")); len(rs) != 1 {
		t.Errorf("chaos list after deleting every rule = %q", rs)
	}
	mustFail(t, []string{"chaos", "delete", vmRule}, "not found")
}

// TestChaosBadInput checks the errors of chaos add.
func TestChaosBadInput(t *testing.T) {
	srv := startServer(t)
	srv.setEnv(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--status", "500", "--for", "1m"}, "exactly one of --scope, --vm or --all"},
		{[]string{"--vm", "a", "--scope", "b", "--status", "500", "--for", "1m"}, "exactly one of --scope, --vm or --all"},
		{[]string{"--all", "--for", "1m"}, "exactly one of --status or --delay"},
		{[]string{"--all", "--status", "500", "--delay", "1s", "--for", "1m"}, "exactly one of --status or --delay"},
		{[]string{"--all", "--status", "404", "--for", "1m"}, "--status: 404 is not 410, 429 or 500"},
		{[]string{"--all", "--status", "500", "--fraction", "1.5", "--for", "1m"}, "--fraction must be more than 0 and at most 1"},
		{[]string{"--all", "--status", "500", "--fraction", "NaN", "--for", "1m"}, "--fraction"},
		{[]string{"--all", "--status", "500"}, "missing --for"},
		{[]string{"--vm", "nope", "--status", "500", "--for", "1m"}, `"nope" not found`},
	} {
		mustFail(t, append([]string{"chaos", "add"}, c.args...), c.want)
	}
	rule := mustJSON[forewarn.ChaosRule](t, "chaos", "add", "--all", "--delay", "2s", "--fraction", "0.25", "--for", "1m", "-o", "json")
	if rule.Scope != "" || rule.VM != "" || rule.Status != 0 || rule.Delay != forewarn.Duration(2e9) || rule.Fraction != 0.25 {
		t.Errorf("chaos add --all --delay = %+v", rule)
	}
	if rs := rows(t, mustRun(t, "chaos", "list")); len(rs) != 2 || !slices.Equal(rs[1][1:5], []string{"all", "-", "2s", "0.25"}) {
		t.Errorf("chaos list = %q", rs)
	}
}

// wantStatus checks the status the metadata endpoint answers the VM that
// owns addr.
func wantStatus(t *testing.T, srv *testServer, addr string, want int) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet,
		srv.metadataURL+"/metadata/scheduledevents?api-version=2020-07-01", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Metadata", "true")
	resp, err := vmHTTPClient(addr).Do(req)
	if err != nil {
		t.Fatalf("GET as %s: %v", addr, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != want {
		t.Errorf("GET as %s: %d %s, want %d", addr, resp.StatusCode, body, want)
	}
}
