package fabric

import (
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// TestTwoCampaignsOneDomainAtATime runs two campaigns over one scope of
// three update domains: at no time are two of its update domains in
// maintenance, and both campaigns walk it to the end, one after the other.
func TestTwoCampaignsOneDomainAtATime(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.scope(forewarn.ScopeSpec{Name: "web", UpdateDomains: 3})
	for i, name := range []string{"web-0", "web-1", "web-2"} {
		h.vm(forewarn.VMSpec{Name: name, Scope: "web", UpdateDomain: &i})
	}
	freeze := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: []string{"web"}})
	reboot := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Reboot, Scopes: []string{"web"}})
	if w := h.campaign(reboot.ID).Scopes[0].Waiting; !strings.Contains(w, freeze.ID) {
		t.Errorf("the second campaign's progress does not say it waits for the first: %q", w)
	}
	for step := 0; step < 200; step++ {
		events, _, err := h.f.Events(h.ctx, forewarn.EventQuery{Scope: "web"})
		if err != nil {
			t.Fatal(err)
		}
		if len(events) > 1 {
			t.Fatalf("two update domains of web in maintenance at once: %+v and %+v", events[0], events[1])
		}
		if h.campaign(freeze.ID).State == forewarn.CampaignDone && h.campaign(reboot.ID).State == forewarn.CampaignDone {
			return
		}
		h.tick(time.Minute)
	}
	t.Fatalf("the campaigns did not end: %+v, %+v", h.campaign(freeze.ID), h.campaign(reboot.ID))
}
