package fabric

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/google/uuid"
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

	// vms are the VMs of each scope this transaction read, kept up to date
	// as it writes them (forgotten when it deletes one): a campaign reads
	// a scope's VMs to pick an update domain and again to publish it.
	// eventsOf are the events of each scope read, kept up to date as the
	// transaction writes them. On etcd, each read of a scope's records is
	// a round trip or two.
	vms      map[string][]*forewarn.VM
	eventsOf map[string][]*forewarn.Event
	// live are the ids of every event in flight, read at the first
	// isLive and kept up to date by PutEvent and DeleteEvent: a campaign
	// checks the event of each of its scopes in one read, not one each.
	live map[string]bool
	// newIDs are ids for new events, made and read ahead by
	// reserveEventIDs, taken by newEventID.
	newIDs []string
	// scopesRead are the scopes readAll read, by lowercased name.
	scopesRead map[string]*forewarn.Scope

	// eventScopes are the scopes whose events this tx wrote, published or
	// not: the scheduler follows every change of an event (pending).
	eventScopes map[string]string
	// eventEnded says an event left the store (completed, cancelled, or
	// its VMs gone): a campaign may move on.
	eventEnded bool

	// Filled by collect, for after the commit.
	snapshots []*forewarn.ScopeSnapshot
	removed   []string
	// events are the events in flight of the scopes in eventScopes that
	// are not published (their document did not change).
	events map[string]scopeEvents
	// chaos, if set, are the chaos rules to publish.
	chaos *[]*forewarn.ChaosRule

	// What happened, for the metrics.
	created, started []*forewarn.Event
	ended            []*forewarn.Event
	lateStarts       []time.Duration // of the events started by their time
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
		vms:         map[string][]*forewarn.VM{},
		eventsOf:    map[string][]*forewarn.Event{},
		eventScopes: map[string]string{},
	}
}

// writes returns how many writes the transaction holds and the most the
// store takes in one, or 0 and 0 if it does not say (forewarn.WriteLimited).
func (t *txn) writes() (n, limit int) {
	if l, ok := t.Tx.(forewarn.WriteLimited); ok {
		return l.Writes()
	}
	return 0, 0
}

// counted runs fn and returns how many writes it added to the transaction
// (0 if the store does not say).
func (t *txn) counted(fn func() error) (int, error) {
	before, _ := t.writes()
	err := fn()
	after, _ := t.writes()
	return after - before, err
}

// room reports whether the transaction may take another item that writes
// up to more: always, if the store does not bound its transactions.
func (t *txn) room(more int) bool {
	n, limit := t.writes()
	return limit == 0 || n+more <= limit
}

// PutEvent writes an event, keeps the events read of its scope up to date,
// and notes the scope for the scheduler. An event never moves to another
// scope.
func (t *txn) PutEvent(e *forewarn.Event) error {
	if err := t.Tx.PutEvent(e); err != nil {
		return err
	}
	key := strings.ToLower(e.Scope)
	t.eventScopes[key] = e.Scope
	if cached, ok := t.eventsOf[key]; ok {
		cached = slices.DeleteFunc(cached, func(c *forewarn.Event) bool { return forewarn.SameName(c.ID, e.ID) })
		cached = append(cached, copyEvents([]*forewarn.Event{e})[0])
		slices.SortFunc(cached, oldestFirst)
		t.eventsOf[key] = cached
	}
	if t.live != nil {
		t.live[strings.ToLower(e.ID)] = true
	}
	return nil
}

// DeleteEvent deletes an event, keeps the events read of its scope up to
// date, and notes the scope for the scheduler.
func (t *txn) DeleteEvent(id string) error {
	if e, err := t.Tx.Event(id); err == nil {
		key := strings.ToLower(e.Scope)
		t.eventScopes[key] = e.Scope
		if cached, ok := t.eventsOf[key]; ok {
			t.eventsOf[key] = slices.DeleteFunc(cached, func(c *forewarn.Event) bool { return forewarn.SameName(c.ID, id) })
		}
	}
	delete(t.live, strings.ToLower(id))
	t.eventEnded = true
	return t.Tx.DeleteEvent(id)
}

// oldestFirst orders events as the store returns them: by CreatedAt, then
// by ID.
func oldestFirst(a, b *forewarn.Event) int {
	return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
}

// readAll reads every scope, VM and event in flight into the caches, in
// three reads of a range each (on etcd, a page of 500 keys a round trip),
// rather than three reads a scope, and returns the names of the scopes.
// It is for a transaction that reads the whole fleet and writes nothing.
func (t *txn) readAll() ([]string, error) {
	scopes, err := t.Tx.Scopes()
	if err != nil {
		return nil, err
	}
	vms, err := t.Tx.VMs("")
	if err != nil {
		return nil, err
	}
	events, err := t.Tx.Events("")
	if err != nil {
		return nil, err
	}
	t.scopesRead = make(map[string]*forewarn.Scope, len(scopes))
	names := make([]string, len(scopes))
	for i, s := range scopes {
		key := strings.ToLower(s.Name)
		t.scopesRead[key], names[i] = s, s.Name
		t.vms[key], t.eventsOf[key] = []*forewarn.VM{}, []*forewarn.Event{}
	}
	for _, vm := range vms {
		key := strings.ToLower(vm.Scope)
		if _, ok := t.vms[key]; ok {
			t.vms[key] = append(t.vms[key], vm)
		}
	}
	for _, e := range events { // oldest first, as a scope's are
		key := strings.ToLower(e.Scope)
		if _, ok := t.eventsOf[key]; ok {
			t.eventsOf[key] = append(t.eventsOf[key], e)
		}
	}
	return names, nil
}

// Scope returns the scope named name, from what readAll read if it did.
func (t *txn) Scope(name string) (*forewarn.Scope, error) {
	if t.scopesRead == nil {
		return t.Tx.Scope(name)
	}
	s, ok := t.scopesRead[strings.ToLower(name)]
	if !ok {
		return nil, forewarn.Errorf(forewarn.ErrNotFound, "scope %q not found", name)
	}
	c := *s
	return &c, nil
}

// PutScope writes a scope; what readAll read is no longer used.
func (t *txn) PutScope(s *forewarn.Scope) error {
	t.scopesRead = nil
	return t.Tx.PutScope(s)
}

// DeleteScope deletes a scope; what readAll read is no longer used.
func (t *txn) DeleteScope(name string) error {
	t.scopesRead = nil
	return t.Tx.DeleteScope(name)
}

// Events returns the events in flight of scope, or of every scope if scope
// is "". A scope's are read once until one of them is written, and
// returned as copies, as the store returns them.
func (t *txn) Events(scope string) ([]*forewarn.Event, error) {
	if scope == "" {
		return t.Tx.Events("")
	}
	key := strings.ToLower(scope)
	events, ok := t.eventsOf[key]
	if !ok {
		var err error
		if events, err = t.Tx.Events(scope); err != nil {
			return nil, err
		}
		t.eventsOf[key] = events
	}
	return copyEvents(events), nil
}

// prefetch reads ahead the records of the scopes this transaction has not
// read, with their VMs and events, in a few round trips for them all, if
// the store reads ahead (etcd: a round trip or two each otherwise).
func (t *txn) prefetch(scopes []string) error {
	p, ok := t.Tx.(interface{ PrefetchScopes([]string) error })
	if !ok {
		return nil
	}
	var fresh []string
	for _, s := range scopes {
		key := strings.ToLower(s)
		_, vms := t.vms[key]
		_, events := t.eventsOf[key]
		if !vms || !events {
			fresh = append(fresh, s)
		}
	}
	return p.PrefetchScopes(fresh)
}

// reserveEventIDs makes ids for n new events and reads their keys ahead,
// if the store reads ahead: storing an event reads its key, to find one
// stored before; on etcd, a round trip each otherwise.
func (t *txn) reserveEventIDs(n int) error {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = uuid.NewString()
	}
	if p, ok := t.Tx.(interface{ PrefetchEvents([]string) error }); ok {
		if err := p.PrefetchEvents(ids); err != nil {
			return err
		}
	}
	t.newIDs = append(t.newIDs, ids...)
	return nil
}

// newEventID returns an id for a new event: one reserveEventIDs made, or a
// new one.
func (t *txn) newEventID() string {
	if len(t.newIDs) == 0 {
		return uuid.NewString()
	}
	id := t.newIDs[0]
	t.newIDs = t.newIDs[1:]
	return id
}

// isLive reports whether the event with the id is in flight.
func (t *txn) isLive(id string) (bool, error) {
	if t.live == nil {
		ids, err := t.eventIDs()
		if err != nil {
			return false, err
		}
		t.live = make(map[string]bool, len(ids))
		for _, id := range ids {
			t.live[strings.ToLower(id)] = true
		}
	}
	return t.live[strings.ToLower(id)], nil
}

// eventIDs returns the ids of every event in flight: from the store's
// index if it lists them (the stores do; a wrapper may not), without
// reading the events.
func (t *txn) eventIDs() ([]string, error) {
	if l, ok := t.Tx.(interface{ EventIDs() ([]string, error) }); ok {
		return l.EventIDs()
	}
	events, err := t.Tx.Events("")
	ids := make([]string, len(events))
	for i, e := range events {
		ids[i] = e.ID
	}
	return ids, err
}

// copyEvents returns deep copies of events.
func copyEvents(events []*forewarn.Event) []*forewarn.Event {
	out := make([]*forewarn.Event, len(events))
	for i, e := range events {
		c := *e
		c.Resources = slices.Clone(e.Resources)
		c.Actuated = slices.Clone(e.Actuated)
		c.Failed = slices.Clone(e.Failed)
		c.Deleted = slices.Clone(e.Deleted)
		out[i] = &c
	}
	return out
}

// VMs returns the VMs of scope, or of every scope if scope is "". A
// scope's are read once until one of them is written, and returned as
// copies, as the store returns them.
func (t *txn) VMs(scope string) ([]*forewarn.VM, error) {
	if scope == "" {
		return t.Tx.VMs("")
	}
	key := strings.ToLower(scope)
	vms, ok := t.vms[key]
	if !ok {
		var err error
		if vms, err = t.Tx.VMs(scope); err != nil {
			return nil, err
		}
		t.vms[key] = vms
	}
	return copyVMs(vms), nil
}

// PutVM writes a VM, and keeps the VMs read of its scope up to date: it
// replaces the VM there, or adds a new one in name order, as the store
// returns them. A VM never moves to another scope: its scope is set when
// it is created.
func (t *txn) PutVM(vm *forewarn.VM) error {
	if err := t.Tx.PutVM(vm); err != nil {
		return err
	}
	key := strings.ToLower(vm.Scope)
	cached, ok := t.vms[key]
	if !ok {
		return nil
	}
	c := copyVMs([]*forewarn.VM{vm})[0]
	i, found := slices.BinarySearchFunc(cached, strings.ToLower(vm.Name), func(v *forewarn.VM, name string) int {
		return strings.Compare(strings.ToLower(v.Name), name)
	})
	if found {
		cached[i] = c
	} else {
		t.vms[key] = slices.Insert(cached, i, c)
	}
	return nil
}

// DeleteVM deletes a VM and forgets every VM read.
func (t *txn) DeleteVM(name string) error {
	clear(t.vms)
	return t.Tx.DeleteVM(name)
}

// copyVMs returns deep copies of VMs.
func copyVMs(vms []*forewarn.VM) []*forewarn.VM {
	out := make([]*forewarn.VM, len(vms))
	for i, vm := range vms {
		c := *vm
		c.Addresses = slices.Clone(vm.Addresses)
		out[i] = &c
	}
	return out
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
	t.events = map[string]scopeEvents{}
	for key, name := range t.eventScopes {
		if _, published := t.touched[key]; published || t.deleted[key] != "" {
			continue
		}
		s, err := t.Scope(name)
		if errors.Is(err, forewarn.ErrNotFound) {
			continue
		} else if err != nil {
			return fmt.Errorf("events of scope %q: %w", name, err)
		}
		events, err := t.Events(name)
		if err != nil {
			return fmt.Errorf("events of scope %q: %w", name, err)
		}
		t.events[key] = scopeEvents{s.Incarnation, events}
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
