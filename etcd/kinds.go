package etcd

import (
	"cmp"
	"slices"

	"github.com/forewarn/forewarn"
)

// Scope returns the scope named name.
func (t *tx) Scope(name string) (*forewarn.Scope, error) {
	return get[forewarn.Scope](t, scopeKind, name)
}

// Scopes returns every scope, ordered by name case-insensitively.
func (t *tx) Scopes() ([]*forewarn.Scope, error) {
	return list(t, scopeKind, func(*forewarn.Scope) bool { return true })
}

// PutScope writes a scope, replacing the one of the same name.
func (t *tx) PutScope(s *forewarn.Scope) error {
	if s == nil {
		return forewarn.Errorf(forewarn.ErrInvalid, "scope is nil")
	}
	return put(t, scopeKind, s.Name, s)
}

// DeleteScope deletes the scope named name.
func (t *tx) DeleteScope(name string) error { return del(t, scopeKind, name) }

// VM returns the VM named name.
func (t *tx) VM(name string) (*forewarn.VM, error) {
	return get[forewarn.VM](t, vmKind, name)
}

// VMs returns the VMs of scope, or all if scope is "", ordered by name
// case-insensitively.
func (t *tx) VMs(scope string) ([]*forewarn.VM, error) {
	return list(t, vmKind, func(vm *forewarn.VM) bool {
		return scope == "" || forewarn.SameName(vm.Scope, scope)
	})
}

// PutVM writes a VM, replacing the one of the same name.
func (t *tx) PutVM(vm *forewarn.VM) error {
	if vm == nil {
		return forewarn.Errorf(forewarn.ErrInvalid, "VM is nil")
	}
	return put(t, vmKind, vm.Name, vm)
}

// DeleteVM deletes the VM named name.
func (t *tx) DeleteVM(name string) error { return del(t, vmKind, name) }

// Event returns the event in flight with the id.
func (t *tx) Event(id string) (*forewarn.Event, error) {
	return get[forewarn.Event](t, eventKind, id)
}

// Events returns the events in flight of scope, or all if scope is "",
// oldest first: by CreatedAt, then by ID.
func (t *tx) Events(scope string) ([]*forewarn.Event, error) {
	events, err := list(t, eventKind, func(e *forewarn.Event) bool {
		return scope == "" || forewarn.SameName(e.Scope, scope)
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(events, func(a, b *forewarn.Event) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return events, nil
}

// PutEvent writes an event in flight, replacing the one with the same id.
func (t *tx) PutEvent(e *forewarn.Event) error {
	if e == nil {
		return forewarn.Errorf(forewarn.ErrInvalid, "event is nil")
	}
	return put(t, eventKind, e.ID, e)
}

// DeleteEvent deletes the event in flight with the id.
func (t *tx) DeleteEvent(id string) error { return del(t, eventKind, id) }
