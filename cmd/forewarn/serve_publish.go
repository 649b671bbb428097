package main

import "github.com/forewarn/forewarn"

// publishers hands what the control plane publishes to each of them: the
// metadata endpoint and the dashboard's hub.
type publishers []forewarn.Publisher

func (ps publishers) PublishScope(snap *forewarn.ScopeSnapshot) {
	for _, p := range ps {
		p.PublishScope(snap)
	}
}

func (ps publishers) RemoveScope(name string) {
	for _, p := range ps {
		p.RemoveScope(name)
	}
}

func (ps publishers) PublishChaos(rules []*forewarn.ChaosRule) {
	for _, p := range ps {
		p.PublishChaos(rules)
	}
}

// PublishCampaign hands the campaign to those that take campaigns.
func (ps publishers) PublishCampaign(c *forewarn.Campaign) {
	for _, p := range ps {
		if cp, ok := p.(forewarn.CampaignPublisher); ok {
			cp.PublishCampaign(c)
		}
	}
}
