package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forewarn/forewarn/fleetfile"
)

// A small fleet file, and the same fleet without web-1 and batch.
const (
	smallFleet = `scopes:
  - name: web
    updateDomains: 2
    vms:
      - name: web-0
        addresses: [127.0.30.1]
      - name: web-1
vms:
  - name: batch
`
	smallerFleet = `scopes:
  - name: web
    updateDomains: 2
    vms:
      - name: web-0
        addresses: [127.0.30.1]
`
)

// TestApply applies a fleet file twice, then a smaller one without and
// with --prune, and one in conflict with the fleet.
func TestApply(t *testing.T) {
	srv := startServer(t)
	srv.setEnv(t)
	small := writeFile(t, "fleet.yaml", smallFleet)

	if got := changeLines(t, mustRun(t, "apply", "-f", small)); got != "create scope web|create vm web-0|create vm web-1|create vm batch" {
		t.Errorf("first apply: %s", got)
	}
	if got := changeLines(t, mustRun(t, "apply", "-f", small)); got != "unchanged scope web|unchanged vm web-0|unchanged vm web-1|unchanged vm batch" {
		t.Errorf("second apply: %s", got)
	}
	changes := mustJSON[[]fleetfile.Change](t, "apply", "-f", small, "-o", "json")
	if len(changes) != 4 || changes[1].Action != fleetfile.ActionUnchanged || changes[1].Kind != fleetfile.KindVM || changes[1].Name != "web-0" {
		t.Errorf("apply -o json = %+v", changes)
	}

	smaller := writeFile(t, "smaller.yaml", smallerFleet)
	if got := changeLines(t, mustRun(t, "apply", "-f", smaller)); got != "unchanged scope web|unchanged vm web-0" {
		t.Errorf("apply without --prune: %s", got)
	}
	mustRun(t, "vm", "show", "web-1")
	out := mustRun(t, "apply", "-f", smaller, "--prune", "--dry-run")
	if got := changeLines(t, out); got != "delete vm batch|delete vm web-1|unchanged scope web|unchanged vm web-0" ||
		!strings.HasSuffix(out, "(dry run: nothing was changed)\n") {
		t.Errorf("apply --prune --dry-run:\n%s", out)
	}
	mustRun(t, "vm", "show", "batch")
	mustRun(t, "apply", "-f", smaller, "--prune")
	mustFail(t, []string{"vm", "show", "web-1"}, "not found")
	mustFail(t, []string{"vm", "show", "batch"}, "not found")
	mustRun(t, "vm", "show", srv.hostVM) // scope default is never pruned

	conflict := writeFile(t, "conflict.yaml", strings.Replace(smallerFleet, "updateDomains: 2", "updateDomains: 3", 1))
	out, err := runCLI(t, "apply", "-f", conflict)
	if err == nil || !strings.HasSuffix(err.Error(), "conflict.yaml: 1 conflict with the fleet, nothing was changed") ||
		!strings.HasSuffix(out, "conflict.yaml:2: conflict scope web: updateDomains: file 3, server 2\n") {
		t.Errorf("apply of a file in conflict: %v; output:\n%s", err, out)
	}
	mustFail(t, []string{"apply", "-f", conflict, "--dry-run"}, "1 conflict")
}

// TestApplyBadFile checks that a bad fleet file is refused with the line
// and field at fault, on one line, and changes nothing.
func TestApplyBadFile(t *testing.T) {
	srv := startServer(t)
	srv.setEnv(t)
	bad := writeFile(t, "bad.yaml", smallFleet+`  - name: batch-2
    colour: red
    updateDomain: 7
`)
	mustFail(t, []string{"apply", "-f", bad}, "bad.yaml:11:5: vms[1].colour: unknown field", "bad.yaml:12:19: vms[1].updateDomain: 7 is out of range")
	if rs := rows(t, mustRun(t, "scope", "list")); len(rs) != 2 {
		t.Errorf("a bad file changed the fleet: %q", rs)
	}
	mustFail(t, []string{"apply"}, "missing -f FILE")
	mustFail(t, []string{"apply", "-f", filepath.Join(t.TempDir(), "nope.yaml")}, "nope.yaml")
	mustFail(t, []string{"apply", "-f", bad, "extra"}, "unknown command")
}

// TestServeFleet starts serve with the example fleet, which applies
// cleanly before the admin API opens, and then applies it again.
func TestServeFleet(t *testing.T) {
	srv := startServer(t, "--fleet", filepath.Join("..", "..", "examples", "fleet.yaml"))
	srv.setEnv(t)
	if rs := rows(t, mustRun(t, "vm", "list")); len(rs) != 1+18+1 { // header, the fleet, the host's VM
		t.Errorf("vm list after serve --fleet: %d rows:\n%q", len(rs), rs)
	}
	if rs := rows(t, mustRun(t, "vm", "list", "--scope", "workers")); len(rs) != 5 || rs[1][4] != "Spot" {
		t.Errorf("the scale set of Spot VMs: %q", rs)
	}
	out := mustRun(t, "apply", "-f", filepath.Join("..", "..", "examples", "fleet.yaml"))
	for line := range strings.Lines(out) {
		if !strings.HasPrefix(line, "unchanged ") {
			t.Errorf("applying the example fleet again: %q", line)
		}
	}
	if !strings.Contains(srv.logs.String(), `"msg":"fleet applied"`) {
		t.Errorf("serve did not log the fleet applied")
	}
}

// TestServeBadFleet checks that serve refuses to start with a bad fleet
// file, naming the line at fault.
func TestServeBadFleet(t *testing.T) {
	bad := writeFile(t, "bad.yaml", "scopes:\n  - name: web\n    kind: rack\n")
	err := serveError(t, "--fleet", bad)
	if !strings.Contains(err.Error(), "bad.yaml:3") || !strings.Contains(err.Error(), "kind") {
		t.Errorf("serve --fleet with a bad file: %v", err)
	}
}

// serveError runs serve with args, on loopback and a fresh data directory,
// and returns the error it must fail with before it starts serving.
func serveError(t *testing.T, args ...string) error {
	t.Helper()
	logs := &lineWriter{}
	cmd := newCLI(append([]string{"serve", "--data-dir", t.TempDir(),
		"--metadata-addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0"}, args...), logs)
	err := cmd.ExecuteContext(t.Context())
	if err == nil {
		t.Fatalf("serve %s started; log:\n%s", strings.Join(args, " "), logs)
	}
	if strings.Contains(logs.String(), "listening") {
		t.Errorf("serve %s opened a listener before failing; log:\n%s", strings.Join(args, " "), logs)
	}
	return err
}

// changeLines returns the action, kind and name of each line that apply
// printed, joined by "|".
func changeLines(t *testing.T, out string) string {
	t.Helper()
	var got []string
	for line := range strings.Lines(out) {
		if f := strings.Fields(strings.TrimSuffix(line, ":")); len(f) >= 3 && !strings.HasPrefix(line, "(") {
			got = append(got, strings.Join(f[:2], " ")+" "+strings.TrimSuffix(f[2], ":"))
		}
	}
	return strings.Join(got, "|")
}

// writeFile writes a file in a temporary directory and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
