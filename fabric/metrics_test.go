package fabric

import (
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestCampaignMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	h := mustOpenHarness(t, Config{AlwaysEnabled: true, Registerer: reg})
	scopes := fleet3x5(h)
	c := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: scopes[:1]})
	r := newRollout(h, c)
	r.run(func() bool { return len(r.seen) == 3 }) // two update domains done, the third in flight
	want := `
# HELP forewarn_campaign_update_domains Update domains of each campaign, done and in all (progress = done / total).
# TYPE forewarn_campaign_update_domains gauge
forewarn_campaign_update_domains{campaign="` + c.ID + `",count="done",type="Freeze"} 2
forewarn_campaign_update_domains{campaign="` + c.ID + `",count="total",type="Freeze"} 5
# HELP forewarn_campaign_events_in_flight Events in flight of each running campaign.
# TYPE forewarn_campaign_events_in_flight gauge
forewarn_campaign_events_in_flight{campaign="` + c.ID + `"} 1
`
	err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"forewarn_campaign_update_domains", "forewarn_campaign_events_in_flight")
	if err != nil {
		t.Fatal(err)
	}
}

// TestLatenessMetric: an event started 3 s after its NotBefore and
// completed 2 s after its EndsAt shows so in forewarn_event_lateness_seconds;
// an approved one is not counted as started late.
func TestLatenessMetric(t *testing.T) {
	reg := prometheus.NewRegistry()
	h := mustOpenHarness(t, Config{AlwaysEnabled: true, Registerer: reg})
	h.scope(forewarn.ScopeSpec{Name: "web"})
	h.vm(forewarn.VMSpec{Name: "web-0", Scope: "web"})
	h.vm(forewarn.VMSpec{Name: "web-1", Scope: "web"})
	e := h.operate("web-0", forewarn.OpRestart)
	h.tick(e.NotBefore.Sub(h.clock.Now()) + 3*time.Second)
	started := h.event(e.ID)
	h.tick(started.EndsAt.Sub(h.clock.Now()) + 2*time.Second)
	approved := h.operate("web-1", forewarn.OpRestart)
	if _, err := h.f.Approve(h.ctx, approved.ID); err != nil {
		t.Fatal(err)
	}
	for at, want := range map[string][2]float64{"start": {1, 3}, "end": {1, 2}} {
		count, sum := histogram(t, reg, "forewarn_event_lateness_seconds", at)
		if count != want[0] || sum != want[1] {
			t.Errorf("lateness at %s: %v events, %v s; want %v, %v s", at, count, sum, want[0], want[1])
		}
	}
}

// histogram returns the count and sum of a histogram's series whose one
// label has the value.
func histogram(t *testing.T, reg *prometheus.Registry, name, label string) (count, sum float64) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if m.GetLabel()[0].GetValue() == label {
				return float64(m.GetHistogram().GetSampleCount()), m.GetHistogram().GetSampleSum()
			}
		}
	}
	return 0, 0
}
