package fabric

import (
	"slices"
	"testing"

	"github.com/forewarn/forewarn"
)

// TestCampaignSkipsWhatIsGone deletes the VMs of a campaign's scheduled
// update domain, then the scope: the campaign walks past both, says why,
// and does not walk the scope created again under the name.
func TestCampaignSkipsWhatIsGone(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	ud := func(n int) *int { return &n }
	h.scope(forewarn.ScopeSpec{Name: "web", UpdateDomains: 3})
	h.vm(forewarn.VMSpec{Name: "web-0", Scope: "web", UpdateDomain: ud(0)})
	h.vm(forewarn.VMSpec{Name: "web-1", Scope: "web", UpdateDomain: ud(1)})
	c := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: []string{"web"}})
	if c.Scopes[0].Event == "" {
		t.Fatalf("no event for update domain 0: %+v", c.Scopes[0])
	}
	if err := h.f.DeleteVM(h.ctx, "web-0"); err != nil {
		t.Fatal(err)
	}
	h.tick(0)
	c = h.campaign(c.ID)
	if p := c.Scopes[0]; p.Done != 1 || p.Event == "" || len(p.Skipped) != 1 ||
		p.Skipped[0] != (forewarn.SkippedDomain{UpdateDomain: 0, Reason: "its VMs were deleted before its event started"}) {
		t.Fatalf("after web-0 was deleted: %+v", p)
	}
	if err := h.f.DeleteVM(h.ctx, "web-1"); err != nil {
		t.Fatal(err)
	}
	if err := h.f.DeleteScope(h.ctx, "web"); err != nil {
		t.Fatal(err)
	}
	h.scope(forewarn.ScopeSpec{Name: "web", UpdateDomains: 3})
	h.vm(forewarn.VMSpec{Name: "web-2", Scope: "web", UpdateDomain: ud(2)})
	h.tick(0)
	c = h.campaign(c.ID)
	reasons := func(p forewarn.ScopeProgress) []string {
		var out []string
		for _, s := range p.Skipped {
			out = append(out, s.Reason)
		}
		return out
	}
	want := []string{"its VMs were deleted before its event started", "its VMs were deleted before its event started", "the scope was deleted"}
	if p := c.Scopes[0]; c.State != forewarn.CampaignDone || p.Maintained() != 0 || !slices.Equal(reasons(p), want) {
		t.Errorf("campaign after its scope was deleted: %s %+v", c.State, p)
	}
	if events, _, err := h.f.Events(h.ctx, forewarn.EventQuery{Scope: "web"}); err != nil || len(events) != 0 {
		t.Errorf("the old campaign walks the new web: %+v, %v", events, err)
	}
}
