package fabric

import (
	"errors"
	"fmt"
	"time"

	"github.com/forewarn/forewarn"
)

// changes are what a transaction changed, or a refresh read, for after
// it: the scopes to publish and to remove, the events the scheduler
// follows, the chaos rules and campaigns to publish, and what the metrics
// count. publish consumes them.
type changes struct {
	// now is the time of the transaction: a published scope shows
	// enabled as of it.
	now time.Time

	// Noted as the transaction runs. The scopes are by key, with their
	// names.
	touched map[forewarn.Key]string // whose VMs or events changed: to publish
	deleted map[forewarn.Key]string // gone: to remove from the endpoint
	// eventScopes are the scopes whose events were written, published or
	// not: the scheduler follows every change of an event (pending).
	eventScopes map[forewarn.Key]string
	// eventEnded says an event left the store (completed, cancelled, or
	// its VMs gone): a campaign may move on.
	eventEnded bool
	wakeup     bool                   // the scheduler has new work (an actuation to retry)
	chaos      *[]*forewarn.ChaosRule // if set, the chaos rules to publish
	campaigns  []*forewarn.Campaign   // stored or read: to publish and count

	// For the metrics.
	created, started, ended []*forewarn.Event
	lateStarts              []time.Duration // of the events started by their time
	approvals               []string        // who approved each event approved

	// Filled by collect.
	snapshots []*forewarn.ScopeSnapshot
	removed   []string
	// inFlight are the events in flight of the scopes in eventScopes
	// that are not published (their document did not change).
	inFlight map[forewarn.Key]scopeEvents
}

func newChanges(now time.Time) *changes {
	return &changes{
		now:         now,
		touched:     map[forewarn.Key]string{},
		deleted:     map[forewarn.Key]string{},
		eventScopes: map[forewarn.Key]string{},
	}
}

// touch marks a scope to be published: its VMs changed, or its events did.
func (c *changes) touch(scope string) {
	c.touched[forewarn.KeyOf(scope)] = scope
}

// scopeDeleted marks a scope as gone, to be removed from the endpoint.
func (c *changes) scopeDeleted(scope string) {
	key := forewarn.KeyOf(scope)
	delete(c.touched, key)
	c.deleted[key] = scope
}

// eventWritten notes that an event of the scope was written or deleted.
func (c *changes) eventWritten(scope string) {
	c.eventScopes[forewarn.KeyOf(scope)] = scope
}

// collect reads the new state of every scope touched, at the end of the
// transaction, so that what is published is exactly what is committed.
func (c *changes) collect(r *readCache) error {
	c.snapshots, c.removed = nil, nil
	for _, name := range c.deleted {
		c.removed = append(c.removed, name)
	}
	for _, name := range c.touched {
		s, err := r.Scope(name)
		if err != nil {
			return fmt.Errorf("snapshot of scope %q: %w", name, err)
		}
		vms, err := r.VMs(name)
		if err != nil {
			return fmt.Errorf("snapshot of scope %q: %w", name, err)
		}
		events, err := r.Events(name)
		if err != nil {
			return fmt.Errorf("snapshot of scope %q: %w", name, err)
		}
		c.snapshots = append(c.snapshots, &forewarn.ScopeSnapshot{Scope: s, VMs: vms, Events: events})
	}
	c.inFlight = map[forewarn.Key]scopeEvents{}
	for key, name := range c.eventScopes {
		if _, published := c.touched[key]; published || c.deleted[key] != "" {
			continue
		}
		s, err := r.Scope(name)
		if errors.Is(err, forewarn.ErrNotFound) {
			continue
		} else if err != nil {
			return fmt.Errorf("events of scope %q: %w", name, err)
		}
		events, err := r.Events(name)
		if err != nil {
			return fmt.Errorf("events of scope %q: %w", name, err)
		}
		c.inFlight[key] = scopeEvents{s.Incarnation, events}
	}
	return nil
}
