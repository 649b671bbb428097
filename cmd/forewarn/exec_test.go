package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/client"
)

// TestExecActuator runs serve with the exec actuator: an approved event
// runs the command for its VM, and completes when the command succeeds.
func TestExecActuator(t *testing.T) {
	calls := filepath.Join(t.TempDir(), "calls")
	srv := startServer(t, "--actuator", "exec", "--exec-command", `echo "$FOREWARN_VM $FOREWARN_EVENT_TYPE" >> '`+calls+`'`)
	srv.setEnv(t)

	ev := mustJSON[forewarn.Event](t, "vm", "restart", srv.hostVM, "-o", "json")
	mustRun(t, "maintenance", "approve", ev.ID)
	awaitVMDocument(t, srv, "127.0.0.1", func(doc *client.Document) bool { return len(doc.Events) == 0 })

	if got, want := readFile(t, calls), srv.hostVM+" Reboot\n"; got != want {
		t.Errorf("the command's calls = %q, want %q", got, want)
	}
	history := mustJSON[[]forewarn.Event](t, "maintenance", "history", "-o", "json")
	if len(history) != 1 || history[0].ID != ev.ID || history[0].Outcome != forewarn.Completed ||
		!slices.Equal(history[0].Actuated, []string{srv.hostVM}) {
		t.Errorf("history = %+v", history)
	}
}

// TestResolve runs a command that always fails: the event stays Started
// with the VM under FAILED until the admin retries it, then completes it.
func TestResolve(t *testing.T) {
	calls := filepath.Join(t.TempDir(), "calls")
	srv := startServer(t, "--actuator", "exec", "--exec-attempts", "2", "--exec-backoff", "1ms",
		"--exec-command", `echo "$FOREWARN_VM" >> '`+calls+`'; exit 3`)
	srv.setEnv(t)

	ev := mustJSON[forewarn.Event](t, "vm", "restart", srv.hostVM, "-o", "json")
	mustFail(t, []string{"maintenance", "resolve", ev.ID, "--complete"}, "has not started")
	mustRun(t, "maintenance", "approve", ev.ID)
	awaitFailed(t, "after the approval", ev.ID, srv.hostVM)
	rs := rows(t, mustRun(t, "maintenance", "list"))
	if rs[0][8] != "FAILED" || len(rs) != 2 || rs[1][2] != "Started" || rs[1][8] != srv.hostVM {
		t.Errorf("maintenance list does not show the failed VM: %q", rs)
	}

	retried := mustJSON[forewarn.Event](t, "maintenance", "resolve", ev.ID, "--retry", "-o", "json")
	if retried.Status != forewarn.Started || len(retried.Failed) != 0 {
		t.Errorf("resolve --retry = %+v", retried)
	}
	awaitFailed(t, "after resolve --retry, which runs the command again", ev.ID, srv.hostVM)
	if n := strings.Count(readFile(t, calls), srv.hostVM+"\n"); n != 4 {
		t.Errorf("the command ran %d times, want 2 attempts, twice", n)
	}

	out := mustRun(t, "maintenance", "resolve", ev.ID, "--complete")
	if rs := rows(t, out); len(rs) != 2 || rs[1][0] != ev.ID {
		t.Errorf("resolve --complete:\n%s", out)
	}
	if events := mustJSON[[]forewarn.Event](t, "maintenance", "list", "-o", "json"); len(events) != 0 {
		t.Errorf("events after resolve --complete = %+v", events)
	}
	if h := mustJSON[[]forewarn.Event](t, "maintenance", "history", "-o", "json"); len(h) != 1 || h[0].Outcome != forewarn.Completed {
		t.Errorf("history = %+v", h)
	}
	mustFail(t, []string{"maintenance", "resolve", ev.ID, "--retry"}, "not found", "maintenance history")
	mustFail(t, []string{"maintenance", "resolve", ev.ID}, "--complete or --retry")
	mustFail(t, []string{"maintenance", "resolve", ev.ID, "--complete", "--retry"}, "not both")
}

// awaitFailed waits until the event shows vm, and only vm, as failed.
func awaitFailed(t *testing.T, when, id, vm string) {
	t.Helper()
	eventually(t, when+": the event shows "+vm+" failed", func() bool {
		events := mustJSON[[]forewarn.Event](t, "maintenance", "list", "-o", "json")
		return len(events) == 1 && events[0].ID == id && slices.Equal(events[0].Failed, []string{vm})
	})
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
