package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/client"
)

// TestWalk goes through the life of a small fleet with the CLI against a
// real server: inventory, user operations, the in-VM view, approval,
// cancellation, history and deletion.
func TestWalk(t *testing.T) {
	srv := startServer(t)
	srv.setEnv(t)

	if out := mustRun(t, "maintenance", "history", "-o", "json"); out != "[]\n" {
		t.Errorf("empty history in JSON = %q, want an empty array", out)
	}
	scope := mustJSON[forewarn.Scope](t, "scope", "create", "web", "--update-domains", "2", "--fault-domains", "2", "-o", "json")
	if scope.Name != "web" || scope.Kind != forewarn.AvailabilitySet || scope.UpdateDomains != 2 || scope.FaultDomains != 2 {
		t.Errorf("scope create -o json = %+v", scope)
	}
	walkVMs(t)
	restart, redeploy := walkOperations(t)
	started := walkInVM(t, srv)
	walkMaintenance(t, restart, redeploy, started)
	walkDeletion(t)
	if out := mustRun(t, "version"); !strings.HasPrefix(out, "forewarn ") {
		t.Errorf("version = %q", out)
	}
}

// walkVMs creates two VMs in scope web and lists them.
func walkVMs(t *testing.T) {
	t.Helper()
	out := mustRun(t, "vm", "create", "web-0", "--scope", "web", "--address", "10.0.0.4")
	if rs := rows(t, out); len(rs) != 2 || rs[1][0] != "web-0" || rs[1][6] != "10.0.0.4" {
		t.Errorf("vm create table:\n%s", out)
	}
	vm := mustJSON[forewarn.VM](t, "vm", "create", "web-1", "--scope", "web", "--spot", "--update-domain", "1", "--fault-domain", "0", "-o", "json")
	if vm.Priority != forewarn.Spot || vm.UpdateDomain != 1 || vm.FaultDomain != 0 || vm.Scope != "web" || vm.ID == "" {
		t.Errorf("vm create -o json = %+v", vm)
	}

	rs := rows(t, mustRun(t, "vm", "list", "--scope", "web"))
	if want := []string{"NAME", "SCOPE", "UD", "FD", "PRIORITY", "STATE", "ADDRESSES"}; !slices.Equal(rs[0], want) {
		t.Errorf("vm list header = %q, want %q", rs[0], want)
	}
	if len(rs) != 3 || rs[1][0] != "web-0" || rs[2][0] != "web-1" || rs[2][4] != "Spot" || rs[2][6] != "-" {
		t.Errorf("vm list --scope web = %q", rs)
	}
	all := mustJSON[[]forewarn.VM](t, "vm", "list", "-o", "json")
	if len(all) != 3 { // with the host's default VM
		t.Errorf("vm list -o json: %d VMs, want 3: %+v", len(all), all)
	}
	if shown := mustJSON[forewarn.VM](t, "vm", "show", "WEB-1", "-o", "json"); shown.ID != vm.ID {
		t.Errorf("vm show WEB-1 = %+v, want %+v", shown, vm)
	}
}

// walkOperations restarts web-0 and redeploys web-1, checks the events in
// both output formats, and returns their ids.
func walkOperations(t *testing.T) (restart, redeploy string) {
	t.Helper()
	ev := mustJSON[*forewarn.Event](t, "vm", "restart", "web-0", "-o", "json")
	if ev.Type != forewarn.Reboot || ev.Status != forewarn.Scheduled || ev.Scope != "web" ||
		!slices.Equal(ev.Resources, []string{"web-0"}) || ev.NotBefore.IsZero() {
		t.Errorf("vm restart -o json = %+v", ev)
	}
	out := mustRun(t, "vm", "redeploy", "web-1")
	rs := rows(t, out)
	if want := []string{"ID", "TYPE", "STATUS", "SCOPE", "RESOURCES", "NOT-BEFORE", "SOURCE", "APPROVED-BY", "FAILED"}; !slices.Equal(rs[0], want) {
		t.Errorf("event table header = %q, want %q", rs[0], want)
	}
	if len(rs) != 2 || rs[1][1] != "Redeploy" || rs[1][2] != "Scheduled" || rs[1][4] != "web-1" ||
		rs[1][6] != "User" || rs[1][7] != "-" {
		t.Fatalf("vm redeploy table:\n%s", out)
	}
	mustFail(t, []string{"vm", "restart", "web-0"}, ev.ID) // names the event in the way

	listed := mustRun(t, "maintenance", "list")
	if !strings.Contains(listed, ev.ID) || !strings.Contains(listed, rs[1][0]) {
		t.Errorf("maintenance list lacks the events:\n%s", listed)
	}
	if inWeb := mustJSON[[]forewarn.Event](t, "maintenance", "list", "--scope", "web", "-o", "json"); len(inWeb) != 2 {
		t.Errorf("maintenance list --scope web: %d events, want 2", len(inWeb))
	}
	if none := mustJSON[[]forewarn.Event](t, "maintenance", "list", "--scope", "default", "-o", "json"); len(none) != 0 {
		t.Errorf("maintenance list --scope default = %+v, want none", none)
	}
	return ev.ID, rs[1][0]
}

// walkInVM restarts the host's VM and, as that VM, lists the event,
// approves it and sees it start. It returns the event's id.
func walkInVM(t *testing.T, srv *testServer) string {
	t.Helper()
	ev := mustJSON[*forewarn.Event](t, "vm", "restart", srv.hostVM, "-o", "json")

	out := mustRun(t, "events")
	if !strings.HasPrefix(out, "DocumentIncarnation: ") || !containsAll(out, []string{ev.ID, "Reboot", "Scheduled", srv.hostVM}) {
		t.Errorf("events:\n%s", out)
	}
	doc := mustJSON[client.Document](t, "events", "list", "-o", "json", "--endpoint", srv.metadataURL)
	if len(doc.Events) != 1 || doc.Events[0].EventId != ev.ID || doc.Events[0].EventStatus != client.EventStatusScheduled {
		t.Fatalf("events list -o json = %+v, want only %s, Scheduled", doc, ev.ID)
	}

	if out := mustRun(t, "events", "approve", "--all"); out != "approved "+ev.ID+"\n" {
		t.Errorf("events approve --all = %q", out)
	}
	after := mustJSON[client.Document](t, "events", "-o", "json")
	if len(after.Events) != 1 || after.Events[0].EventStatus != client.EventStatusStarted ||
		after.DocumentIncarnation <= doc.DocumentIncarnation {
		t.Errorf("after approval: %+v (before: incarnation %d)", after, doc.DocumentIncarnation)
	}
	if out := mustRun(t, "events", "approve", "--all"); out != "no Scheduled events to approve\n" {
		t.Errorf("events approve --all with nothing Scheduled = %q", out)
	}
	seen := mustJSON[[]forewarn.Event](t, "maintenance", "list", "--scope", "default", "-o", "json")
	if len(seen) != 1 || seen[0].Status != forewarn.Started || seen[0].ApprovedBy != srv.hostVM || seen[0].ApprovedAt.IsZero() {
		t.Errorf("admin view of the approved event = %+v", seen)
	}
	return ev.ID
}

// walkMaintenance cancels and approves events as the admin and reads the
// history.
func walkMaintenance(t *testing.T, restart, redeploy, started string) {
	t.Helper()
	mustFail(t, []string{"maintenance", "cancel", started}, "has started and can no longer be cancelled")

	out := mustRun(t, "maintenance", "cancel", restart)
	if rs := rows(t, out); len(rs) != 2 || rs[1][0] != restart {
		t.Errorf("maintenance cancel:\n%s", out)
	}
	approved := mustJSON[*forewarn.Event](t, "maintenance", "approve", redeploy, "-o", "json")
	if approved.Status != forewarn.Started || approved.ApprovedBy != forewarn.ApprovedByAdmin {
		t.Errorf("maintenance approve -o json = %+v", approved)
	}

	rs := rows(t, mustRun(t, "maintenance", "history"))
	if len(rs) != 2 || rs[1][0] != restart || rs[1][2] != string(forewarn.Cancelled) {
		t.Errorf("maintenance history = %q", rs)
	}
	history := mustJSON[[]forewarn.Event](t, "maintenance", "history", "--limit", "1", "-o", "json")
	if len(history) != 1 || history[0].ID != restart || history[0].Outcome != forewarn.Cancelled || history[0].EndedAt.IsZero() {
		t.Errorf("maintenance history -o json = %+v", history)
	}
}

// walkDeletion deletes the VMs of scope web, and then the scope.
func walkDeletion(t *testing.T) {
	t.Helper()
	mustFail(t, []string{"scope", "delete", "web"}, `"web"`)
	for _, vm := range []string{"web-0", "web-1"} {
		if out := mustRun(t, "vm", "delete", vm); out != "deleted vm "+vm+"\n" {
			t.Errorf("vm delete %s = %q", vm, out)
		}
	}
	mustFail(t, []string{"vm", "show", "web-0"}, `"web-0" not found`)
	if out := mustRun(t, "scope", "delete", "web"); out != "deleted scope web\n" {
		t.Errorf("scope delete web = %q", out)
	}
	rs := rows(t, mustRun(t, "scope", "list"))
	if want := []string{"NAME", "KIND", "UDS", "FDS", "INCARNATION", "ENABLED", "ENABLED-SINCE", "LAST-SEEN"}; !slices.Equal(rs[0], want) {
		t.Errorf("scope list header = %q, want %q", rs[0], want)
	}
	if len(rs) != 2 || rs[1][0] != "default" {
		t.Errorf("scope list after deletion = %q", rs)
	}
}
