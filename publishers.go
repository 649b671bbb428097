package forewarn

// ScopeSnapshot is the state of one scope that the metadata endpoint serves:
// the scope with its incarnation, its VMs, and its events in flight.
type ScopeSnapshot struct {
	Scope  *Scope
	VMs    []*VM
	Events []*Event
}

// Publisher receives the state of each scope after every change to it. The
// control plane publishes; the metadata endpoint serves what was published.
// The snapshots and everything they point to must not be changed afterwards.
type Publisher interface {
	PublishScope(snap *ScopeSnapshot)
	// RemoveScope says a scope and all its VMs are gone.
	RemoveScope(name string)
	// PublishChaos replaces the chaos rules in force.
	PublishChaos(rules []*ChaosRule)
}

// CampaignPublisher is a Publisher that also receives every campaign after
// each change to it, as the dashboard's live stream does. The campaign must
// not be changed afterwards.
type CampaignPublisher interface {
	Publisher
	PublishCampaign(c *Campaign)
}

// Publishers hands what the control plane publishes to each of its
// publishers in turn, in order: serve's metadata endpoint and the
// dashboard's hub. It is a CampaignPublisher; campaigns go only to those
// of its publishers that take them.
type Publishers []Publisher

var _ CampaignPublisher = Publishers(nil)

// PublishScope hands the scope's snapshot to every publisher.
func (ps Publishers) PublishScope(snap *ScopeSnapshot) {
	for _, p := range ps {
		p.PublishScope(snap)
	}
}

// RemoveScope tells every publisher the scope is gone.
func (ps Publishers) RemoveScope(name string) {
	for _, p := range ps {
		p.RemoveScope(name)
	}
}

// PublishChaos hands the chaos rules in force to every publisher.
func (ps Publishers) PublishChaos(rules []*ChaosRule) {
	for _, p := range ps {
		p.PublishChaos(rules)
	}
}

// PublishCampaign hands the campaign to the publishers that take
// campaigns (CampaignPublisher) and skips the others.
func (ps Publishers) PublishCampaign(c *Campaign) {
	for _, p := range ps {
		if cp, ok := p.(CampaignPublisher); ok {
			cp.PublishCampaign(c)
		}
	}
}
