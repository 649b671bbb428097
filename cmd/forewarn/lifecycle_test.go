package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/client"
)

// The regression tests of the lifecycle defects of issue 14, each through
// the real serve and the CLI.

// TestRecreatedScopeGetsNotice deletes a scope whose VM enabled it and
// creates both again: the new scope behaves as a new one, enabled by its
// own first request, and its events get notice.
func TestRecreatedScopeGetsNotice(t *testing.T) {
	srv := startServer(t, "--dev=false", "--time-scale", "60", "--first-call-delay", "0")
	srv.setEnv(t)
	create := func() {
		mustRun(t, "scope", "create", "s1")
		mustRun(t, "vm", "create", "a1", "--scope", "s1", "--address", "127.0.40.1")
	}
	create()
	awaitVMDocument(t, srv, "127.0.40.1", func(*client.Document) bool { return true })
	if s := mustJSON[forewarn.Scope](t, "scope", "show", "s1", "-o", "json"); !s.Enabled {
		t.Fatalf("s1 is not enabled by its VM's request: %+v", s)
	}
	mustRun(t, "vm", "delete", "a1")
	mustRun(t, "scope", "delete", "s1")
	create()
	if s := mustJSON[forewarn.Scope](t, "scope", "show", "s1", "-o", "json"); s.Enabled || !s.LastSeen.IsZero() {
		t.Errorf("the new s1 shows its predecessor's requests: %+v", s)
	}
	for range 2 {
		awaitVMDocument(t, srv, "127.0.40.1", func(*client.Document) bool { return true })
	}
	s := mustJSON[forewarn.Scope](t, "scope", "show", "s1", "-o", "json")
	if !s.Enabled || s.LastSeen.Before(s.CreatedAt) {
		t.Errorf("the new s1 after its VM asked: %+v", s)
	}
	e := mustJSON[forewarn.Event](t, "vm", "restart", "a1", "-o", "json")
	if e.Status != forewarn.Scheduled || e.NotBefore.IsZero() {
		t.Errorf("vm restart in the new s1 = %+v, want a Scheduled event with notice", e)
	}
}

// TestActuatorSwitchFinishesEvents restarts serve with another actuator
// while an event is Started: the new actuator finishes it, and says so.
func TestActuatorSwitchFinishesEvents(t *testing.T) {
	dir := t.TempDir()
	calls := filepath.Join(t.TempDir(), "calls")
	exec := []string{"--time-scale", "600", "--actuator", "exec", "--exec-command", `echo "$FOREWARN_VM" >> '` + calls + `'; sleep 600`}

	// exec, whose command never ends, then simulate: the event completes
	// at its nominal end (Reboot: 60 s, 0.1 s at --time-scale 600).
	srv := startServerIn(t, dir, exec...)
	srv.setEnv(t)
	e := mustJSON[forewarn.Event](t, "vm", "restart", srv.hostVM, "-o", "json")
	mustRun(t, "maintenance", "approve", e.ID)
	eventually(t, "the command runs", func() bool {
		b, _ := os.ReadFile(calls) // not there until the command runs
		return strings.Contains(string(b), srv.hostVM)
	})
	srv.stop(t)()

	srv = startServerIn(t, dir, "--time-scale", "600")
	srv.setEnv(t)
	awaitOutcome(t, e.ID, forewarn.Completed)
	srv.logs.await(t, 0, srv.stopped, "finishing an event another actuator started", `"started_by":"exec"`, `"finished_by":"simulate"`)

	// simulate (a Reboot's impact lasting 60 s), then exec: the command
	// runs before the event completes.
	srv.stop(t)()
	srv = startServerIn(t, dir)
	srv.setEnv(t)
	e = mustJSON[forewarn.Event](t, "vm", "restart", srv.hostVM, "-o", "json")
	mustRun(t, "maintenance", "approve", e.ID)
	srv.stop(t)()
	srv = startServerIn(t, dir, "--actuator", "exec", "--exec-command", `echo "$FOREWARN_EVENT_ID" >> '`+calls+`'`)
	srv.setEnv(t)
	awaitOutcome(t, e.ID, forewarn.Completed)
	if !strings.Contains(readFile(t, calls), e.ID) {
		t.Errorf("exec completed an event simulate started without running its command; calls:\n%s", readFile(t, calls))
	}
	srv.logs.await(t, 0, srv.stopped, "finishing an event another actuator started", `"started_by":"simulate"`, `"finished_by":"exec"`)
}

// TestResolveNeedsFailedActuation refuses to complete an event whose
// actuation never failed, unless forced.
func TestResolveNeedsFailedActuation(t *testing.T) {
	srv := startServer(t) // time scale 1: a Reboot's impact lasts 60 s
	srv.setEnv(t)
	e := mustJSON[forewarn.Event](t, "vm", "restart", srv.hostVM, "-o", "json")
	mustRun(t, "maintenance", "approve", e.ID)
	mustFail(t, []string{"maintenance", "resolve", e.ID, "--complete"}, "no failed actuation", "--force")
	if got := inFlight(t, e.ID); got == nil || got.Status != forewarn.Started {
		t.Errorf("a refused resolve changed the event: %+v", got)
	}
	mustFail(t, []string{"maintenance", "resolve", e.ID, "--retry", "--force"}, "--force goes with --complete")
	mustRun(t, "maintenance", "resolve", e.ID, "--complete", "--force")
	awaitOutcome(t, e.ID, forewarn.Completed)
}

// TestDeletedVMLeavesEvent deletes the VM an exec actuation failed on: the
// event, whose other VM is done, completes, and FAILED never lists it.
func TestDeletedVMLeavesEvent(t *testing.T) {
	srv := startServer(t, "--actuator", "exec", "--exec-attempts", "1",
		"--exec-command", `test "$FOREWARN_VM" != b`)
	srv.setEnv(t)
	mustRun(t, "scope", "create", "s", "--update-domains", "1")
	mustRun(t, "vm", "create", "a", "--scope", "s", "--address", "127.0.41.1")
	mustRun(t, "vm", "create", "b", "--scope", "s", "--address", "127.0.41.2")
	out := mustRun(t, "maintenance", "start", "--type", "Freeze", "--scope", "s")
	c := mustJSON[forewarn.Campaign](t, "maintenance", "campaign", "show", summaryField(t, out, "ID:"), "-o", "json")
	id := c.Scopes[0].Event
	mustRun(t, "maintenance", "approve", id)
	awaitFailed(t, "after the approval", id, "b")
	mustRun(t, "vm", "delete", "b")
	awaitOutcome(t, id, forewarn.Completed)
	h := historyEvent(t, id)
	if !slices.Equal(h.Resources, []string{"a"}) || len(h.Failed) != 0 || !slices.Equal(h.Actuated, []string{"a"}) ||
		!slices.Equal(h.Deleted, []string{"b"}) {
		t.Errorf("history of the event = %+v", h)
	}
}

// TestUserVMOfHostName deletes the host's default VM and creates a VM of
// the user's under its name: a restart leaves the user's VM as it is.
func TestUserVMOfHostName(t *testing.T) {
	dir := t.TempDir()
	srv := startServerIn(t, dir)
	srv.setEnv(t)
	mustRun(t, "scope", "create", "web")
	mustRun(t, "vm", "delete", srv.hostVM)
	mustRun(t, "vm", "create", srv.hostVM, "--scope", "web", "--address", "127.0.30.50")
	srv.stop(t)()
	srv = startServerIn(t, dir)
	srv.setEnv(t)
	vm := mustJSON[forewarn.VM](t, "vm", "show", srv.hostVM, "-o", "json")
	if vm.Scope != "web" || !slices.Equal(vm.Addresses, []string{"127.0.30.50"}) {
		t.Errorf("the user's VM after a restart = %+v", vm)
	}
	awaitVMDocument(t, srv, "127.0.30.50", func(*client.Document) bool { return true })
}

// TestStateFollowsEveryEvent fails a VM whose redeploy has started: when
// the redeploy completes, the VM is still under repair.
func TestStateFollowsEveryEvent(t *testing.T) {
	srv := startServer(t, "--time-scale", "100") // redeploy 3 s, repair 6 s
	srv.setEnv(t)
	redeploy := mustJSON[forewarn.Event](t, "vm", "redeploy", srv.hostVM, "-o", "json")
	mustRun(t, "maintenance", "approve", redeploy.ID)
	repair := mustJSON[forewarn.Event](t, "vm", "fail", srv.hostVM, "-o", "json")
	awaitOutcome(t, redeploy.ID, forewarn.Completed)
	if got := inFlight(t, repair.ID); got == nil || got.Status != forewarn.Started {
		t.Fatalf("the repair is no longer in flight: %+v", got)
	}
	if vm := mustJSON[forewarn.VM](t, "vm", "show", srv.hostVM, "-o", "json"); vm.State != forewarn.Rebooting {
		t.Errorf("state while the repair is Started = %s, want rebooting", vm.State)
	}
	awaitOutcome(t, repair.ID, forewarn.Completed)
	if vm := mustJSON[forewarn.VM](t, "vm", "show", srv.hostVM, "-o", "json"); vm.State != forewarn.Running {
		t.Errorf("state once nothing is in flight = %s, want running", vm.State)
	}
}

// TestCancelledCampaignEventSkipsDomain cancels the event of a campaign's
// first update domain: the campaign moves on, and its progress says the
// domain was skipped and why.
func TestCancelledCampaignEventSkipsDomain(t *testing.T) {
	srv := startServer(t, "--time-scale", "600")
	srv.setEnv(t)
	mustRun(t, "scope", "create", "web", "--update-domains", "3")
	for i, addr := range []string{"127.0.42.1", "127.0.42.2"} {
		mustRun(t, "vm", "create", "web-"+string(rune('0'+i)), "--scope", "web", "--update-domain", string(rune('0'+i)), "--address", addr)
	}
	out := mustRun(t, "maintenance", "start", "--type", "Freeze", "--scope", "web")
	id := summaryField(t, out, "ID:")
	first := mustJSON[forewarn.Campaign](t, "maintenance", "campaign", "show", id, "-o", "json").Scopes[0].Event
	mustRun(t, "maintenance", "cancel", first)
	var c forewarn.Campaign
	eventually(t, "the campaign ends", func() bool {
		c = mustJSON[forewarn.Campaign](t, "maintenance", "campaign", "show", id, "-o", "json")
		return c.State == forewarn.CampaignDone
	})
	p := c.Scopes[0]
	want := []forewarn.SkippedDomain{
		{UpdateDomain: 0, Reason: "its event was cancelled by the admin"},
		{UpdateDomain: 2, Reason: "no VMs"},
	}
	if p.Done != 3 || p.Maintained() != 1 || !slices.Equal(p.Skipped, want) {
		t.Errorf("progress = %+v, want UD 1 maintained, 0 and 2 skipped", p)
	}
	if out := mustRun(t, "maintenance", "campaign", "show", id); !strings.Contains(out, "cancelled by the admin") {
		t.Errorf("campaign show does not say why UD 0 was skipped:\n%s", out)
	}
}

// awaitOutcome waits until the event is in the history with the outcome.
func awaitOutcome(t *testing.T, id string, outcome forewarn.Outcome) {
	t.Helper()
	eventually(t, "event "+id+" is "+string(outcome), func() bool {
		h := historyEvent(t, id)
		return h != nil && h.Outcome == outcome
	})
}

// historyEvent returns the event from the history, or nil.
func historyEvent(t *testing.T, id string) *forewarn.Event {
	t.Helper()
	for _, e := range mustJSON[[]forewarn.Event](t, "maintenance", "history", "-o", "json") {
		if e.ID == id {
			return &e
		}
	}
	return nil
}

// inFlight returns the event from maintenance list, or nil.
func inFlight(t *testing.T, id string) *forewarn.Event {
	t.Helper()
	for _, e := range mustJSON[[]forewarn.Event](t, "maintenance", "list", "-o", "json") {
		if e.ID == id {
			return &e
		}
	}
	return nil
}

// TestRunsStopWithTheirEvent runs a command that never ends for two VMs:
// deleting one VM stops its run, and completing the event with --force
// stops the other's.
func TestRunsStopWithTheirEvent(t *testing.T) {
	dir := t.TempDir()
	srv := startServer(t, "--actuator", "exec",
		"--exec-command", `echo $$ > '`+dir+`'/"$FOREWARN_VM"; exec sleep 600`)
	srv.setEnv(t)
	mustRun(t, "scope", "create", "s", "--update-domains", "1")
	mustRun(t, "vm", "create", "a", "--scope", "s", "--address", "127.0.43.1")
	mustRun(t, "vm", "create", "b", "--scope", "s", "--address", "127.0.43.2")
	out := mustRun(t, "maintenance", "start", "--type", "Freeze", "--scope", "s")
	id := mustJSON[forewarn.Campaign](t, "maintenance", "campaign", "show", summaryField(t, out, "ID:"), "-o", "json").Scopes[0].Event
	mustRun(t, "maintenance", "approve", id)
	pid := func(vm string) int {
		var n int
		eventually(t, "the command runs for "+vm, func() bool {
			b, _ := os.ReadFile(filepath.Join(dir, vm))
			n, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			return n > 0
		})
		return n
	}
	gone := func(what string, pid int) {
		eventually(t, what, func() bool { return syscall.Kill(pid, 0) == syscall.ESRCH })
	}
	a, b := pid("a"), pid("b")
	mustRun(t, "vm", "delete", "b")
	gone("b's run stops once b is deleted", b)
	if syscall.Kill(a, 0) != nil {
		t.Fatalf("a's run stopped with b's")
	}
	mustRun(t, "maintenance", "resolve", id, "--complete", "--force")
	gone("a's run stops once the event is completed", a)
}

// TestChaosZeroValues: a zero --for or --delay given is wrong, and says so.
func TestChaosZeroValues(t *testing.T) {
	srv := startServer(t)
	srv.setEnv(t)
	mustFail(t, []string{"chaos", "add", "--all", "--status", "500", "--for", "0s"}, "--for must be more than 0")
	mustFail(t, []string{"chaos", "add", "--all", "--delay", "0s", "--for", "1m"}, "--delay must be more than 0")
	mustFail(t, []string{"chaos", "add", "--all", "--status", "500"}, "missing --for")
	mustFail(t, []string{"chaos", "add", "--all", "--delay", "6m", "--for", "1h"}, "--delay must be at most 5m")
	if r := mustJSON[forewarn.ChaosRule](t, "chaos", "add", "--all", "--status", "500", "--for", "1.5d", "-o", "json"); r.For != forewarn.Duration(36*time.Hour) {
		t.Errorf("--for 1.5d gave %s", r.For)
	}
}

// TestEventsAtAdminAPI: the in-VM commands pointed at the admin API say so.
func TestEventsAtAdminAPI(t *testing.T) {
	srv := startServer(t)
	mustFail(t, []string{"events", "--endpoint", srv.adminURL}, "admin API?", "--metadata-addr", "--endpoint")
	mustFail(t, []string{"events", "approve", "x", "--endpoint", srv.adminURL}, "admin API?")
	mustFail(t, []string{"events", "watch", "--endpoint", srv.adminURL}, "admin API?") // ends: no retry mends it
}

// TestStoreMustExist: --store-must-exist refuses a store that holds no
// fleet, and takes one that does.
func TestStoreMustExist(t *testing.T) {
	dir := t.TempDir()
	cmd := newCLI([]string{"serve", "--data-dir", dir, "--metadata-addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0",
		"--store-must-exist"}, io.Discard)
	if err := cmd.ExecuteContext(t.Context()); err == nil || !strings.Contains(err.Error(), "holds no fleet") {
		t.Fatalf("serve --store-must-exist on an empty data dir: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "forewarn.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused start left its store file: %v", err)
	}
	srv := startServerIn(t, dir) // a first start: a new fleet
	srv.stop(t)()
	srv = startServerIn(t, dir, "--store-must-exist")
	srv.setEnv(t)
	mustRun(t, "vm", "show", srv.hostVM)
}
