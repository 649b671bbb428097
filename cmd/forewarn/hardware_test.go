package main

import (
	"slices"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// TestVMHardware fails one VM's hardware and degrades another's.
func TestVMHardware(t *testing.T) {
	srv := startServer(t)
	srv.setEnv(t)
	mustRun(t, "vm", "create", "spare")

	out := mustRun(t, "vm", "fail", srv.hostVM)
	rs := rows(t, out)
	if len(rs) != 2 || rs[1][1] != "Reboot" || rs[1][2] != "Started" || rs[1][4] != srv.hostVM || rs[1][5] != "-" || rs[1][6] != "Platform" {
		t.Errorf("vm fail:\n%s", out)
	}
	events := mustJSON[[]forewarn.Event](t, "maintenance", "list", "--scope", "default", "-o", "json")
	if len(events) != 1 || events[0].Operation != forewarn.OpFail || events[0].Description != "Host server is undergoing an emergency repair." ||
		!events[0].NotBefore.IsZero() || events[0].StartedAt.IsZero() {
		t.Errorf("the failure's event = %+v", events)
	}

	before := time.Now()
	ev := mustJSON[forewarn.Event](t, "vm", "degrade", "spare", "--notice", "2d", "-o", "json")
	if ev.Type != forewarn.Redeploy || ev.Status != forewarn.Scheduled || ev.Source != forewarn.Platform ||
		ev.Operation != forewarn.OpDegrade || !slices.Equal(ev.Resources, []string{"spare"}) {
		t.Errorf("vm degrade -o json = %+v", ev)
	}
	if lo, hi := before.Add(48*time.Hour-time.Minute), time.Now().Add(48*time.Hour+time.Minute); ev.NotBefore.Before(lo) || ev.NotBefore.After(hi) {
		t.Errorf("degrade --notice 2d: NotBefore %v, want about 48h from now", ev.NotBefore)
	}
	mustFail(t, []string{"vm", "degrade", "spare"}, ev.ID) // the VM has an event in flight
	mustFail(t, []string{"vm", "degrade", "spare", "--notice", "0"}, "--notice must be more than 0")
	mustFail(t, []string{"vm", "degrade", "spare", "--notice", "soon"}, "--notice", "soon")
	mustFail(t, []string{"vm", "fail", "nope"}, `"nope" not found`)
}
