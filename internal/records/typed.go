package records

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/forewarn/forewarn"
)

// Scope returns the scope named name.
func (t Tx) Scope(name string) (*forewarn.Scope, error) { return get[forewarn.Scope](t, Scopes, name) }

// Scopes returns every scope, ordered by name case-insensitively.
func (t Tx) Scopes() ([]*forewarn.Scope, error) {
	return all(func(fn func(*forewarn.Scope) bool) error { return scan(t, Scopes, "", fn) })
}

// PutScope writes a scope, replacing the one of the same name.
func (t Tx) PutScope(s *forewarn.Scope) error {
	if s == nil {
		return forewarn.Errorf(forewarn.ErrInvalid, "scope is nil")
	}
	return put(t, Scopes, s.Name, s)
}

// DeleteScope deletes the scope named name.
func (t Tx) DeleteScope(name string) error { return del(t, Scopes, name) }

// VM returns the VM named name.
func (t Tx) VM(name string) (*forewarn.VM, error) { return get[forewarn.VM](t, VMs, name) }

// VMs returns the VMs of scope, or all if scope is "", ordered by name
// case-insensitively.
func (t Tx) VMs(scope string) ([]*forewarn.VM, error) {
	return all(func(fn func(*forewarn.VM) bool) error { return t.ScanVMs(scope, "", fn) })
}

// ScanVMs calls fn with the VMs of scope, or of every scope if scope is "",
// in name order, beginning after the name after, until fn returns false. A
// scope's VMs are found through its index.
func (t Tx) ScanVMs(scope, after string, fn func(*forewarn.VM) bool) error {
	if scope == "" {
		return scan(t, VMs, after, fn)
	}
	return scanIndex(t, VMsByScope, VMs, scope, after, fn)
}

// VMsAt returns the VMs that have the address, ordered by name.
func (t Tx) VMsAt(address string) ([]*forewarn.VM, error) {
	return all(func(fn func(*forewarn.VM) bool) error {
		return scanIndex(t, VMsByAddress, VMs, address, "", fn)
	})
}

// PutVM writes a VM, replacing the one of the same name, and indexes it
// under its scope and addresses.
func (t Tx) PutVM(vm *forewarn.VM) error {
	if vm == nil {
		return forewarn.Errorf(forewarn.ErrInvalid, "VM is nil")
	}
	return putIndexed(t, VMs, VMsByScope, vm.Name, vm, &indexed{Scope: vm.Scope, Addresses: vm.Addresses})
}

// DeleteVM deletes the VM named name.
func (t Tx) DeleteVM(name string) error { return delIndexed(t, VMs, VMsByScope, name) }

// Event returns the event in flight with the id.
func (t Tx) Event(id string) (*forewarn.Event, error) { return get[forewarn.Event](t, Events, id) }

// Events returns the events in flight of scope, or all if scope is "",
// oldest first: by CreatedAt, then by ID.
func (t Tx) Events(scope string) ([]*forewarn.Event, error) {
	events, err := all(func(fn func(*forewarn.Event) bool) error {
		if scope == "" {
			return scan(t, Events, "", fn)
		}
		return scanIndex(t, EventsByScope, Events, scope, "", fn)
	})
	slices.SortFunc(events, func(a, b *forewarn.Event) int { return oldestFirst(a.CreatedAt, a.ID, b.CreatedAt, b.ID) })
	return events, err
}

// PutEvent writes an event in flight, replacing the one with the same id.
func (t Tx) PutEvent(e *forewarn.Event) error {
	if e == nil {
		return forewarn.Errorf(forewarn.ErrInvalid, "event is nil")
	}
	return putIndexed(t, Events, EventsByScope, e.ID, e, &indexed{Scope: e.Scope})
}

// DeleteEvent deletes the event in flight with the id.
func (t Tx) DeleteEvent(id string) error { return delIndexed(t, Events, EventsByScope, id) }

func oldestFirst(ta time.Time, ia string, tb time.Time, ib string) int {
	return cmp.Or(ta.Compare(tb), cmp.Compare(ia, ib))
}

// EventIDs returns the ids of every event in flight, lowercased, from the
// index of the events by scope: without reading the events.
func (t Tx) EventIDs() ([]string, error) {
	var ids []string
	err := t.Raw.RawScan(EventsByScope, "", "", func(_ string, member []byte) (bool, error) {
		ids = append(ids, string(member))
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %ss: %w", Events, err)
	}
	return ids, nil
}
