package fabric

import (
	"context"
	"slices"

	"github.com/forewarn/forewarn"
)

// scopeEvents are the events in flight of a scope at an incarnation.
type scopeEvents struct {
	incarnation int64
	events      []*forewarn.Event
}

// keepEvents records a scope's events in flight for the scheduler, unless
// it already has a newer incarnation's; f.mu is held.
func (f *Fabric) keepEvents(key forewarn.Key, s scopeEvents) {
	if cur, ok := f.inFlight[key]; !ok || s.incarnation >= cur.incarnation {
		f.inFlight[key] = s
	}
}

// publish hands the changes of a committed transaction, or of a refresh,
// to the publisher, the metrics and the scheduler (inFlight, which keeps
// the newest incarnation, as the metadata endpoint does); f.mu is held.
func (f *Fabric) publish(c *changes) {
	f.wholeRead = nil
	for _, name := range c.removed {
		key := forewarn.KeyOf(name)
		delete(f.published, key)
		delete(f.inFlight, key)
		delete(f.shownEnabled, key)
		f.enabling.forget(key)
		f.metrics.setScope(name, nil)
		if f.publisher != nil {
			f.publisher.RemoveScope(name)
		}
	}
	for _, snap := range c.snapshots {
		// Whether the scope gets notice, as Scopes shows it, for the
		// dashboard; it is as of this change.
		snap.Scope.Enabled = f.enabled(snap.Scope, c.now)
		key := forewarn.KeyOf(snap.Scope.Name)
		if snap.Scope.Enabled {
			f.shownEnabled[key] = snap.Scope
		} else {
			delete(f.shownEnabled, key)
		}
		f.published[key] = snap.Scope.Name
		f.keepEvents(key, scopeEvents{snap.Scope.Incarnation, snap.Events})
		f.enabling.learnStored(key, snap.Scope)
		f.metrics.setScope(snap.Scope.Name, snap.Events)
		if f.publisher != nil {
			f.publisher.PublishScope(snap)
		}
	}
	for key, s := range c.inFlight {
		f.keepEvents(key, s)
	}
	// A campaign may move on when an event ends, a campaign or a scope
	// changes, or an event that deletes its VMs starts: a campaign does not
	// wait for VMs being deleted (domainVMs).
	if c.eventEnded || len(c.campaigns) > 0 || len(c.removed) > 0 || slices.ContainsFunc(c.started, deletesVMs) {
		f.campaignsDue.Store(true)
	}
	if c.chaos != nil && f.publisher != nil {
		f.publisher.PublishChaos(*c.chaos)
	}
	if cp, ok := f.publisher.(forewarn.CampaignPublisher); ok {
		for _, campaign := range lastOfEach(c.campaigns) {
			cp.PublishCampaign(campaign)
		}
	}
	f.metrics.record(c)
}

// lastOfEach returns the last of the campaigns with each ID, in the order
// of their first appearance: a transaction may note a campaign each time it
// stores it.
func lastOfEach(campaigns []*forewarn.Campaign) []*forewarn.Campaign {
	index := make(map[string]int, len(campaigns))
	var out []*forewarn.Campaign
	for _, c := range campaigns {
		if i, ok := index[c.ID]; ok {
			out[i] = c
			continue
		}
		index[c.ID] = len(out)
		out = append(out, c)
	}
	return out
}

// PublishTo makes p receive the state of every scope now and after every
// change from now on; a CampaignPublisher also receives every campaign.
func (f *Fabric) PublishTo(ctx context.Context, p forewarn.Publisher) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.publisher = p
	if c := f.wholeRead; c != nil { // New's, and nothing changed here since
		f.publish(c)
		return nil
	}
	return f.publishAll(ctx)
}

// publishAll publishes every scope, the chaos rules and the campaigns'
// metrics, and removes the scopes published before that are gone; f.mu is
// held.
func (f *Fabric) publishAll(ctx context.Context) error {
	return f.refreshLocked(ctx, forewarn.Change{All: true})
}
