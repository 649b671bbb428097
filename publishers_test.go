package forewarn_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/forewarn/forewarn"
)

// callLog is a Publisher that notes each call; campaignLog also takes
// campaigns.
type callLog struct{ calls []string }

func (l *callLog) PublishScope(s *forewarn.ScopeSnapshot) {
	l.calls = append(l.calls, "scope "+s.Scope.Name)
}
func (l *callLog) RemoveScope(name string) { l.calls = append(l.calls, "remove "+name) }
func (l *callLog) PublishChaos(r []*forewarn.ChaosRule) {
	l.calls = append(l.calls, fmt.Sprint("chaos ", len(r)))
}

type campaignLog struct{ callLog }

func (l *campaignLog) PublishCampaign(c *forewarn.Campaign) {
	l.calls = append(l.calls, "campaign "+c.ID)
}

// TestPublishersFanOut: every publisher gets every scope, removal and
// chaos rules, in order; only those that take campaigns get campaigns.
func TestPublishersFanOut(t *testing.T) {
	plain, withCampaigns := &callLog{}, &campaignLog{}
	ps := forewarn.Publishers{plain, withCampaigns}
	var _ forewarn.CampaignPublisher = ps
	ps.PublishScope(&forewarn.ScopeSnapshot{Scope: &forewarn.Scope{Name: "web"}})
	ps.PublishCampaign(&forewarn.Campaign{ID: "c1"})
	ps.RemoveScope("old")
	ps.PublishChaos([]*forewarn.ChaosRule{{ID: "x"}})
	if want := []string{"scope web", "remove old", "chaos 1"}; !slices.Equal(plain.calls, want) {
		t.Errorf("plain publisher got %q, want %q", plain.calls, want)
	}
	if want := []string{"scope web", "campaign c1", "remove old", "chaos 1"}; !slices.Equal(withCampaigns.calls, want) {
		t.Errorf("campaign publisher got %q, want %q", withCampaigns.calls, want)
	}
}
