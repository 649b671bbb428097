package fabric

import (
	"strings"
	"testing"

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
