package fabric

import (
	"cmp"
	"slices"

	"github.com/forewarn/forewarn"
)

// readCache is a store transaction that keeps what it read of each scope,
// its VMs and its events, up to date as it writes them, and answers from
// that: a campaign reads a scope's VMs to pick an update domain and again
// to publish it, and on etcd each read of a scope's records is a round
// trip or two. Both the fabric's transactions (txn) and its read-only
// refreshes read through one.
type readCache struct {
	forewarn.Tx

	// vmsOf and eventsOf are the VMs and the events in flight of each
	// scope read (DeleteVM forgets every scope's VMs).
	vmsOf    map[forewarn.Key][]*forewarn.VM
	eventsOf map[forewarn.Key][]*forewarn.Event
	// live are the ids of every event in flight, read at the first isLive:
	// a campaign checks the event of each of its scopes in one read, not
	// one each.
	live map[forewarn.Key]bool
	// scopesRead are the scopes readAll read, until a scope is written.
	scopesRead map[forewarn.Key]*forewarn.Scope
}

func newReadCache(tx forewarn.Tx) *readCache {
	return &readCache{
		Tx:       tx,
		vmsOf:    map[forewarn.Key][]*forewarn.VM{},
		eventsOf: map[forewarn.Key][]*forewarn.Event{},
	}
}

// readAll reads every scope, VM and event in flight into the cache, in
// three reads of a range each (on etcd, a page of 500 keys a round trip),
// rather than three reads a scope, and returns the names of the scopes.
// It is for a transaction that reads the whole fleet and writes nothing.
func (r *readCache) readAll() ([]string, error) {
	scopes, err := r.Tx.Scopes()
	if err != nil {
		return nil, err
	}
	vms, err := r.Tx.VMs("")
	if err != nil {
		return nil, err
	}
	events, err := r.Tx.Events("")
	if err != nil {
		return nil, err
	}
	r.scopesRead = make(map[forewarn.Key]*forewarn.Scope, len(scopes))
	names := make([]string, len(scopes))
	for i, s := range scopes {
		key := forewarn.KeyOf(s.Name)
		r.scopesRead[key], names[i] = s, s.Name
		r.vmsOf[key], r.eventsOf[key] = []*forewarn.VM{}, []*forewarn.Event{}
	}
	for _, vm := range vms {
		key := forewarn.KeyOf(vm.Scope)
		if _, ok := r.vmsOf[key]; ok {
			r.vmsOf[key] = append(r.vmsOf[key], vm)
		}
	}
	for _, e := range events { // oldest first, as a scope's are
		key := forewarn.KeyOf(e.Scope)
		if _, ok := r.eventsOf[key]; ok {
			r.eventsOf[key] = append(r.eventsOf[key], e)
		}
	}
	return names, nil
}

// prefetch reads ahead the records of the scopes not read yet, with their
// VMs and events, in a few round trips for them all, if the store reads
// ahead (etcd: a round trip or two each otherwise).
func (r *readCache) prefetch(scopes []string) error {
	p, ok := r.Tx.(interface{ PrefetchScopes([]string) error })
	if !ok {
		return nil
	}
	var fresh []string
	for _, s := range scopes {
		key := forewarn.KeyOf(s)
		_, vms := r.vmsOf[key]
		_, events := r.eventsOf[key]
		if !vms || !events {
			fresh = append(fresh, s)
		}
	}
	return p.PrefetchScopes(fresh)
}

// Scope returns the scope named name, from what readAll read if it did.
func (r *readCache) Scope(name string) (*forewarn.Scope, error) {
	if r.scopesRead == nil {
		return r.Tx.Scope(name)
	}
	s, ok := r.scopesRead[forewarn.KeyOf(name)]
	if !ok {
		return nil, forewarn.Errorf(forewarn.ErrNotFound, "scope %q not found", name)
	}
	c := *s
	return &c, nil
}

// PutScope writes a scope; what readAll read is no longer used.
func (r *readCache) PutScope(s *forewarn.Scope) error {
	r.scopesRead = nil
	return r.Tx.PutScope(s)
}

// DeleteScope deletes a scope; what readAll read is no longer used.
func (r *readCache) DeleteScope(name string) error {
	r.scopesRead = nil
	return r.Tx.DeleteScope(name)
}

// VMs returns the VMs of scope, or of every scope if scope is "". A
// scope's are read once, and returned as copies, as the store returns
// them.
func (r *readCache) VMs(scope string) ([]*forewarn.VM, error) {
	if scope == "" {
		return r.Tx.VMs("")
	}
	key := forewarn.KeyOf(scope)
	vms, ok := r.vmsOf[key]
	if !ok {
		var err error
		if vms, err = r.Tx.VMs(scope); err != nil {
			return nil, err
		}
		r.vmsOf[key] = vms
	}
	return copyVMs(vms), nil
}

// PutVM writes a VM, and keeps the VMs read of its scope up to date: it
// replaces the VM there, or adds a new one in name order, as the store
// returns them. A VM never moves to another scope: its scope is set when
// it is created.
func (r *readCache) PutVM(vm *forewarn.VM) error {
	if err := r.Tx.PutVM(vm); err != nil {
		return err
	}
	key := forewarn.KeyOf(vm.Scope)
	cached, ok := r.vmsOf[key]
	if !ok {
		return nil
	}
	c := copyVMs([]*forewarn.VM{vm})[0]
	i, found := slices.BinarySearchFunc(cached, vm.Name, func(v *forewarn.VM, name string) int {
		return forewarn.CompareNames(v.Name, name)
	})
	if found {
		cached[i] = c
	} else {
		r.vmsOf[key] = slices.Insert(cached, i, c)
	}
	return nil
}

// DeleteVM deletes a VM and forgets every VM read.
func (r *readCache) DeleteVM(name string) error {
	clear(r.vmsOf)
	return r.Tx.DeleteVM(name)
}

// Events returns the events in flight of scope, or of every scope if scope
// is "". A scope's are read once, and returned as copies, as the store
// returns them.
func (r *readCache) Events(scope string) ([]*forewarn.Event, error) {
	if scope == "" {
		return r.Tx.Events("")
	}
	key := forewarn.KeyOf(scope)
	events, ok := r.eventsOf[key]
	if !ok {
		var err error
		if events, err = r.Tx.Events(scope); err != nil {
			return nil, err
		}
		r.eventsOf[key] = events
	}
	return copyEvents(events), nil
}

// PutEvent writes an event, and keeps the events read of its scope up to
// date. An event never moves to another scope.
func (r *readCache) PutEvent(e *forewarn.Event) error {
	if err := r.Tx.PutEvent(e); err != nil {
		return err
	}
	key := forewarn.KeyOf(e.Scope)
	if cached, ok := r.eventsOf[key]; ok {
		cached = slices.DeleteFunc(cached, func(c *forewarn.Event) bool { return forewarn.SameName(c.ID, e.ID) })
		cached = append(cached, copyEvents([]*forewarn.Event{e})[0])
		slices.SortFunc(cached, oldestFirst)
		r.eventsOf[key] = cached
	}
	if r.live != nil {
		r.live[forewarn.KeyOf(e.ID)] = true
	}
	return nil
}

// DeleteEvent deletes an event, and keeps the events read of its scope up
// to date.
func (r *readCache) DeleteEvent(id string) error {
	_, err := r.deleteEvent(id)
	return err
}

// deleteEvent is DeleteEvent, which also returns the scope of the event,
// or "" if there was none with the id.
func (r *readCache) deleteEvent(id string) (scope string, err error) {
	if e, err := r.Tx.Event(id); err == nil {
		scope = e.Scope
		key := forewarn.KeyOf(scope)
		if cached, ok := r.eventsOf[key]; ok {
			r.eventsOf[key] = slices.DeleteFunc(cached, func(c *forewarn.Event) bool { return forewarn.SameName(c.ID, id) })
		}
	}
	delete(r.live, forewarn.KeyOf(id))
	return scope, r.Tx.DeleteEvent(id)
}

// isLive reports whether the event with the id is in flight.
func (r *readCache) isLive(id string) (bool, error) {
	if r.live == nil {
		ids, err := r.eventIDs()
		if err != nil {
			return false, err
		}
		r.live = make(map[forewarn.Key]bool, len(ids))
		for _, id := range ids {
			r.live[forewarn.KeyOf(id)] = true
		}
	}
	return r.live[forewarn.KeyOf(id)], nil
}

// eventIDs returns the ids of every event in flight: from the store's
// index if it lists them (the stores do; a wrapper may not), without
// reading the events.
func (r *readCache) eventIDs() ([]string, error) {
	if l, ok := r.Tx.(interface{ EventIDs() ([]string, error) }); ok {
		return l.EventIDs()
	}
	events, err := r.Tx.Events("")
	ids := make([]string, len(events))
	for i, e := range events {
		ids[i] = e.ID
	}
	return ids, err
}

// inFlightOn returns the event in flight in scope that hits the VM, or nil.
func (r *readCache) inFlightOn(scope, vm string) (*forewarn.Event, error) {
	events, err := r.Events(scope)
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

// oldestFirst orders events as the store returns them: by CreatedAt, then
// by ID.
func oldestFirst(a, b *forewarn.Event) int {
	return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
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
