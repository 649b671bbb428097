package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentSourceAddrNonsense: forewarn agent refuses a --source-addr that
// is no IP address, naming the flag, and starts nothing. (A build that took
// the flag would run the agent until the deadline.)
func TestAgentSourceAddrNonsense(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	var out bytes.Buffer
	err := newCLI([]string{"agent", "--source-addr", "nonsense", "--endpoint", "http://127.0.0.1:1",
		"--state-file", filepath.Join(t.TempDir(), "state.json")}, &out).ExecuteContext(ctx)
	want := `agent config: --source-addr: "nonsense": want an IP address of this host, such as 127.0.0.2`
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s; output:\n%s", err, want, &out)
	}
	if strings.Contains(out.String(), "agent started") {
		t.Fatalf("the agent started:\n%s", &out)
	}
}

// TestEventsSourceAddr: the in-VM commands ask from --source-addr, so the
// endpoint answers the VM that owns it, and refuse one that is no IP
// address.
func TestEventsSourceAddr(t *testing.T) {
	srv := startServer(t)
	srv.setEnv(t)
	mustRun(t, "scope", "create", "web")
	mustRun(t, "vm", "create", "web-0", "--scope", "web", "--address", "127.0.42.1")
	ev := mustJSON[struct{ ID string }](t, "vm", "restart", "web-0", "-o", "json")

	if out := mustRun(t, "events", "--source-addr", "127.0.42.1"); !strings.Contains(out, ev.ID) {
		t.Errorf("events --source-addr 127.0.42.1 does not list %s:\n%s", ev.ID, out)
	}
	mustFail(t, []string{"events", "list", "--source-addr", "127.0.42.2"}, "127.0.42.2 belongs to no VM")
	if out := mustRun(t, "events", "approve", "--all", "--source-addr", "127.0.42.1"); out != "approved "+ev.ID+"\n" {
		t.Errorf("events approve --all --source-addr 127.0.42.1: %q", out)
	}
	for _, sub := range [][]string{{"events"}, {"events", "list"}, {"events", "approve", "--all"}, {"events", "watch"}} {
		mustFail(t, append(sub, "--source-addr", "nonsense"),
			`--source-addr "nonsense": want an IP address of this host, such as 127.0.0.2`)
	}
}
