package admin

import (
	"fmt"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// TestHubDropsOldTombstones: beyond maxTombstones removed scopes, the
// oldest are forgotten, and a stream from before them is told to start
// over rather than miss a removal; a stream after them goes on.
func TestHubDropsOldTombstones(t *testing.T) {
	h := NewHub()
	h.PublishScope(&forewarn.ScopeSnapshot{Scope: &forewarn.Scope{Name: "kept"}})
	_, behind, _, _ := h.since(0)
	for i := range maxTombstones + 10 {
		name := fmt.Sprintf("solo-%d", i)
		h.PublishScope(&forewarn.ScopeSnapshot{Scope: &forewarn.Scope{Name: name}})
		h.RemoveScope(name)
	}
	if n := len(h.scopes); n != maxTombstones+1 {
		t.Errorf("hub holds %d scopes and tombstones, want %d", n, maxTombstones+1)
	}
	if items, _, _, current := h.since(behind); current || items != nil {
		t.Errorf("a stream from before the dropped tombstones got %d items and current %v, want to start over", len(items), current)
	}
	items, newest, _, current := h.since(0)
	if !current || len(items) != 1 || items[0].event != "scope" {
		t.Fatalf("the whole state is %d items (current %v), want the one scope left", len(items), current)
	}
	h.RemoveScope("kept")
	if items, _, _, current := h.since(newest); !current || len(items) != 1 || items[0].event != "scope-removed" {
		t.Errorf("a stream that is up to date got %d items (current %v), want the removal", len(items), current)
	}
}

// TestHubKeepsRecreatedScope: a scope created again after its removal is
// not dropped with its old tombstone.
func TestHubKeepsRecreatedScope(t *testing.T) {
	h := NewHub()
	h.PublishScope(&forewarn.ScopeSnapshot{Scope: &forewarn.Scope{Name: "web"}})
	h.RemoveScope("web")
	h.PublishScope(&forewarn.ScopeSnapshot{Scope: &forewarn.Scope{Name: "web"}})
	for i := range maxTombstones {
		h.RemoveScope(fmt.Sprintf("gone-%d", i))
	}
	if it := h.scopes["web"]; it == nil || it.event != "scope" {
		t.Errorf("web after the tombstones were dropped: %+v, want the live scope", it)
	}
}

func TestAcceptsGzip(t *testing.T) {
	for _, c := range []struct {
		header []string
		want   bool
	}{
		{nil, false},
		{[]string{"gzip, deflate, br, zstd"}, true}, // Chromium
		{[]string{"br", "GZIP"}, true},
		{[]string{"gzip;q=0.5"}, true},
		{[]string{"gzip; q=0"}, false},
		{[]string{"gzip;q=0.000"}, false},
		{[]string{"x-gzip, identity"}, false},
		{[]string{"deflate"}, false},
	} {
		if got := acceptsGzip(c.header); got != c.want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", c.header, got, c.want)
		}
	}
}

// TestHubKeepsRecentEndedCampaigns: of the ended campaigns, a new stream
// gets the newest maxEndedCampaigns; running ones are always kept.
func TestHubKeepsRecentEndedCampaigns(t *testing.T) {
	h := NewHub()
	start := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	h.PublishCampaign(&forewarn.Campaign{ID: "running", State: forewarn.CampaignRunning})
	for i := range maxEndedCampaigns + 5 {
		h.PublishCampaign(&forewarn.Campaign{ID: fmt.Sprintf("ended-%02d", i), State: forewarn.CampaignDone,
			EndedAt: start.Add(time.Duration(i) * time.Minute)})
	}
	items, _, _, _ := h.since(0)
	kept := map[string]bool{}
	for _, it := range items {
		kept[it.v.(*forewarn.Campaign).ID] = true
	}
	if len(kept) != maxEndedCampaigns+1 || !kept["running"] || kept["ended-04"] || !kept["ended-05"] {
		t.Errorf("the hub keeps %d campaigns (running %v, ended-04 %v, ended-05 %v), want the running one and the %d newest ended",
			len(kept), kept["running"], kept["ended-04"], kept["ended-05"], maxEndedCampaigns)
	}
}
