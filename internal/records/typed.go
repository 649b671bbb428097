package records

import (
	"cmp"
	"slices"
	"time"

	"github.com/forewarn/forewarn"
)

// Scope returns the scope named name.
func (t Tx) Scope(name string) (*forewarn.Scope, error) { return get[forewarn.Scope](t, Scopes, name) }

// Scopes returns every scope, ordered by name case-insensitively.
func (t Tx) Scopes() ([]*forewarn.Scope, error) {
	return list(t, Scopes, func(*forewarn.Scope) bool { return true })
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
	return list(t, VMs, func(vm *forewarn.VM) bool {
		return scope == "" || forewarn.SameName(vm.Scope, scope)
	})
}

// PutVM writes a VM, replacing the one of the same name.
func (t Tx) PutVM(vm *forewarn.VM) error {
	if vm == nil {
		return forewarn.Errorf(forewarn.ErrInvalid, "VM is nil")
	}
	return put(t, VMs, vm.Name, vm)
}

// DeleteVM deletes the VM named name.
func (t Tx) DeleteVM(name string) error { return del(t, VMs, name) }

// Event returns the event in flight with the id.
func (t Tx) Event(id string) (*forewarn.Event, error) { return get[forewarn.Event](t, Events, id) }

// Events returns the events in flight of scope, or all if scope is "",
// oldest first: by CreatedAt, then by ID.
func (t Tx) Events(scope string) ([]*forewarn.Event, error) {
	events, err := list(t, Events, func(e *forewarn.Event) bool {
		return scope == "" || forewarn.SameName(e.Scope, scope)
	})
	slices.SortFunc(events, func(a, b *forewarn.Event) int { return oldestFirst(a.CreatedAt, a.ID, b.CreatedAt, b.ID) })
	return events, err
}

// PutEvent writes an event in flight, replacing the one with the same id.
func (t Tx) PutEvent(e *forewarn.Event) error {
	if e == nil {
		return forewarn.Errorf(forewarn.ErrInvalid, "event is nil")
	}
	return put(t, Events, e.ID, e)
}

// DeleteEvent deletes the event in flight with the id.
func (t Tx) DeleteEvent(id string) error { return del(t, Events, id) }

// Campaign returns the campaign with the id.
func (t Tx) Campaign(id string) (*forewarn.Campaign, error) {
	return get[forewarn.Campaign](t, Campaigns, id)
}

// Campaigns returns every campaign, oldest first: by CreatedAt, then ID.
func (t Tx) Campaigns() ([]*forewarn.Campaign, error) {
	out, err := list(t, Campaigns, func(*forewarn.Campaign) bool { return true })
	slices.SortFunc(out, func(a, b *forewarn.Campaign) int { return oldestFirst(a.CreatedAt, a.ID, b.CreatedAt, b.ID) })
	return out, err
}

// PutCampaign writes a campaign, replacing the one with the same id.
func (t Tx) PutCampaign(c *forewarn.Campaign) error {
	if c == nil {
		return forewarn.Errorf(forewarn.ErrInvalid, "campaign is nil")
	}
	return put(t, Campaigns, c.ID, c)
}

func oldestFirst(ta time.Time, ia string, tb time.Time, ib string) int {
	return cmp.Or(ta.Compare(tb), cmp.Compare(ia, ib))
}

// ScanVMs calls fn with the VMs of scope, or of every scope if scope is "",
// in name order, beginning after the name after, until fn returns false.
func (t Tx) ScanVMs(scope, after string, fn func(*forewarn.VM) bool) error {
	vms, err := t.VMs(scope)
	if err != nil {
		return err
	}
	for _, vm := range vms {
		if key(vm.Name) > key(after) && !fn(vm) {
			return nil
		}
	}
	return nil
}

// VMsAt returns the VMs that have the address, ordered by name.
func (t Tx) VMsAt(address string) ([]*forewarn.VM, error) {
	return list(t, VMs, func(vm *forewarn.VM) bool { return slices.Contains(vm.Addresses, address) })
}
