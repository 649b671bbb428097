package fabric

import (
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestCancelledCampaignCountsItsStartedEvent cancels a campaign while its
// event is Started: the event goes on, and once it completes, the campaign
// no longer names it in flight (nor does its metric) and counts its update
// domain done.
func TestCancelledCampaignCountsItsStartedEvent(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.scope(forewarn.ScopeSpec{Name: "web", UpdateDomains: 2})
	ud := func(n int) *int { return &n }
	h.vm(forewarn.VMSpec{Name: "web-0", Scope: "web", UpdateDomain: ud(0)})
	h.vm(forewarn.VMSpec{Name: "web-1", Scope: "web", UpdateDomain: ud(1)})
	c := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Reboot, Scopes: []string{"web"}})
	id := c.Scopes[0].Event
	if _, err := h.f.Approve(h.ctx, id); err != nil {
		t.Fatal(err)
	}
	c, err := h.f.SteerCampaign(h.ctx, c.ID, forewarn.CancelCampaign)
	if err != nil {
		t.Fatal(err)
	}
	h.tick(time.Hour)
	h.tick(time.Hour)
	if h.event(id) != nil {
		t.Fatal("event still in flight")
	}
	c = h.campaign(c.ID)
	inflight := testutil.ToFloat64(h.f.metrics.campaignInFlight.WithLabelValues(c.ID))
	if p := c.Scopes[0]; c.State != forewarn.CampaignCancelled || p.Event != "" || p.Done != 1 || inflight != 0 {
		t.Errorf("cancelled campaign once its Started event completed: %s %+v, forewarn_campaign_events_in_flight %v", c.State, p, inflight)
	}
}
