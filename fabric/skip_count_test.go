package fabric

import (
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// startedThenScopeDeleted starts a campaign's event, completes it by
// deleting its VM, then deletes the scope, with or without a tick of the
// scheduler between the two.
func startedThenScopeDeleted(t *testing.T, tickBetween bool) forewarn.ScopeProgress {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.scope(forewarn.ScopeSpec{Name: "web", UpdateDomains: 1})
	ud := 0
	h.vm(forewarn.VMSpec{Name: "web-0", Scope: "web", UpdateDomain: &ud})
	c := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Reboot, Scopes: []string{"web"}})
	if _, err := h.f.Approve(h.ctx, c.Scopes[0].Event); err != nil { // UD0 starts
		t.Fatal(err)
	}
	h.tick(time.Second)
	if err := h.f.DeleteVM(h.ctx, "web-0"); err != nil { // its event completes
		t.Fatal(err)
	}
	if tickBetween {
		h.tick(0)
	}
	if err := h.f.DeleteScope(h.ctx, "web"); err != nil {
		t.Fatal(err)
	}
	h.tick(0)
	return h.campaign(c.ID).Scopes[0]
}

// TestDeletedScopeCountsItsMaintainedDomain: an update domain whose event
// completed counts as maintained when its scope is deleted, whatever the
// scheduler's timing.
func TestDeletedScopeCountsItsMaintainedDomain(t *testing.T) {
	for _, tick := range []bool{false, true} {
		if p := startedThenScopeDeleted(t, tick); p.Maintained() != 1 || len(p.Skipped) != 0 {
			t.Errorf("tick between %v: progress %+v, want the update domain maintained", tick, p)
		}
	}
}
