package fabric

import (
	"fmt"
	"strings"
	"time"

	"github.com/forewarn/forewarn"
)

// txn is one transaction of the fabric: the store's Tx, the time it runs
// at, and what it changed, so that each scope's incarnation is bumped once
// and its new state published after the commit.
type txn struct {
	forewarn.Tx
	now         time.Time
	historyKeep int

	bumped  map[string]bool // scopes whose incarnation this tx bumped
	wakeup  bool            // the scheduler has new work (an actuation to retry)
	touched map[string]string
	deleted map[string]string

	// Filled by collect, for after the commit.
	snapshots []*forewarn.ScopeSnapshot
	removed   []string
	// chaos, if set, are the chaos rules to publish.
	chaos *[]*forewarn.ChaosRule

	// What happened, for the metrics.
	created, started []*forewarn.Event
	ended            []*forewarn.Event
	approvals        []string
	campaigns        []*forewarn.Campaign
}

func newTxn(tx forewarn.Tx, now time.Time, historyKeep int) *txn {
	return &txn{
		Tx:          tx,
		now:         now,
		historyKeep: historyKeep,
		bumped:      map[string]bool{},
		touched:     map[string]string{},
		deleted:     map[string]string{},
	}
}

// touch marks a scope to be published after the commit: its VMs changed,
// or its events did.
func (t *txn) touch(scope string) {
	t.touched[strings.ToLower(scope)] = scope
}

// eventsChanged bumps the incarnation of a scope whose events changed, once
// per transaction.
func (t *txn) eventsChanged(scope string) error {
	key := strings.ToLower(scope)
	t.touch(scope)
	if t.bumped[key] {
		return nil
	}
	s, err := t.Scope(scope)
	if err != nil {
		return err
	}
	s.Incarnation++
	if err := t.PutScope(s); err != nil {
		return fmt.Errorf("bump incarnation of %q: %w", scope, err)
	}
	t.bumped[key] = true
	return nil
}

// scopeDeleted marks a scope as gone, to be removed from the endpoint.
func (t *txn) scopeDeleted(scope string) {
	key := strings.ToLower(scope)
	delete(t.touched, key)
	t.deleted[key] = scope
}

// collect reads the new state of every touched scope, at the end of the
// transaction, so that what is published is exactly what is committed.
func (t *txn) collect() error {
	t.snapshots, t.removed = nil, nil
	for _, name := range t.deleted {
		t.removed = append(t.removed, name)
	}
	for _, name := range t.touched {
		s, err := t.Scope(name)
		if err != nil {
			return fmt.Errorf("snapshot of scope %q: %w", name, err)
		}
		vms, err := t.VMs(name)
		if err != nil {
			return fmt.Errorf("snapshot of scope %q: %w", name, err)
		}
		events, err := t.Events(name)
		if err != nil {
			return fmt.Errorf("snapshot of scope %q: %w", name, err)
		}
		t.snapshots = append(t.snapshots, &forewarn.ScopeSnapshot{Scope: s, VMs: vms, Events: events})
	}
	return nil
}

// inFlightOn returns the event in flight in scope that hits the VM, or nil.
func (t *txn) inFlightOn(scope, vm string) (*forewarn.Event, error) {
	events, err := t.Events(scope)
	if err != nil {
		return nil, err
	}
	for _, e := range events {
		if e.Hits(vm) {
			return e, nil
		}
	}
	return nil, nil
}
