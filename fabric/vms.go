package fabric

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"strings"

	"github.com/forewarn/forewarn"
	"github.com/google/uuid"
)

// CreateVM creates a VM; without a scope it is standalone, its own scope.
func (f *Fabric) CreateVM(ctx context.Context, spec forewarn.VMSpec) (*forewarn.VM, error) {
	vm, err := newVM(spec)
	if err != nil {
		return nil, err
	}
	err = f.update(ctx, func(t *txn) error {
		vm.CreatedAt = t.now
		if err := nameFree(t, vm.Name); err != nil {
			return err
		}
		scope, err := f.scopeFor(t, spec)
		if err != nil {
			return err
		}
		return putNewVM(t, vm, scope, spec)
	})
	if err != nil {
		return nil, err
	}
	return vm, nil
}

// newVM checks the parts of a spec that need no state.
func newVM(spec forewarn.VMSpec) (*forewarn.VM, error) {
	if !forewarn.ValidName(spec.Name) {
		return nil, forewarn.Errorf(forewarn.ErrInvalid,
			"invalid vm name %q: want 1-64 letters, digits, '-', '_' or '.'", spec.Name)
	}
	priority := forewarn.Regular
	switch {
	case spec.Priority == "" || strings.EqualFold(string(spec.Priority), string(forewarn.Regular)):
	case strings.EqualFold(string(spec.Priority), string(forewarn.Spot)):
		priority = forewarn.Spot
	default:
		return nil, forewarn.Errorf(forewarn.ErrInvalid,
			"invalid priority %q: want Regular or Spot", spec.Priority)
	}
	addrs, err := parseAddresses(spec.Addresses)
	if err != nil {
		return nil, err
	}
	return &forewarn.VM{
		Name:      spec.Name,
		ID:        uuid.NewString(),
		Addresses: addrs,
		Priority:  priority,
		State:     forewarn.Running,
	}, nil
}

// parseAddresses returns the canonical form of each address.
func parseAddresses(in []string) ([]string, error) {
	out := make([]string, 0, len(in))
	for _, s := range in {
		a, err := netip.ParseAddr(strings.TrimSpace(s))
		if err != nil {
			return nil, forewarn.Errorf(forewarn.ErrInvalid, "invalid address %q: not an IP address", s)
		}
		if a.IsUnspecified() || a.IsMulticast() {
			return nil, forewarn.Errorf(forewarn.ErrInvalid,
				"invalid address %s: a VM calls from a unicast address", a)
		}
		out = append(out, a.Unmap().String())
	}
	return out, nil
}

// scopeFor returns the scope of a new VM, creating the standalone one.
func (f *Fabric) scopeFor(t *txn, spec forewarn.VMSpec) (*forewarn.Scope, error) {
	if spec.Scope != "" {
		s, err := t.Scope(spec.Scope)
		if errors.Is(err, forewarn.ErrNotFound) {
			return nil, forewarn.Errorf(forewarn.ErrNotFound, "scope %q does not exist", spec.Scope)
		} else if err == nil && s.Kind == forewarn.Standalone {
			return nil, forewarn.Errorf(forewarn.ErrInvalid,
				"scope %q is the standalone VM %q's own: a standalone VM's scope takes no other VM", s.Name, s.Name)
		}
		return s, err
	}
	s := &forewarn.Scope{
		Name:            spec.Name,
		Kind:            forewarn.Standalone,
		UpdateDomains:   1,
		FaultDomains:    1,
		TerminateNotice: forewarn.Duration(forewarn.DefaultTerminateNotice),
		Incarnation:     1,
		CreatedAt:       t.now,
	}
	return s, putNewScope(t, s)
}

// putNewVM places a VM in its scope's domains and stores it, refusing a
// name or an address that is taken.
func putNewVM(t *txn, vm *forewarn.VM, scope *forewarn.Scope, spec forewarn.VMSpec) error {
	if err := nameFree(t, vm.Name); err != nil {
		return err
	}
	if err := checkAddresses(t, vm); err != nil {
		return err
	}
	vm.Scope = scope.Name
	peers, err := t.VMs(scope.Name)
	if err != nil {
		return err
	}
	if vm.UpdateDomain, err = domain(spec.UpdateDomain, scope.UpdateDomains, "update", peers,
		func(v *forewarn.VM) int { return v.UpdateDomain }); err != nil {
		return err
	}
	if vm.FaultDomain, err = domain(spec.FaultDomain, scope.FaultDomains, "fault", peers,
		func(v *forewarn.VM) int { return v.FaultDomain }); err != nil {
		return err
	}
	if err := t.PutVM(vm); err != nil {
		return err
	}
	t.touch(scope.Name)
	return nil
}

// nameFree refuses the name of an existing VM.
func nameFree(t *txn, name string) error {
	if _, err := t.VM(name); err == nil {
		return forewarn.Errorf(forewarn.ErrConflict, "vm %q already exists", name)
	} else if !errors.Is(err, forewarn.ErrNotFound) {
		return err
	}
	return nil
}

// addressOwner returns the name of the VM, other than vm, that has the
// address, or "".
func addressOwner(t *txn, address, vm string) (string, error) {
	owners, err := t.VMsAt(address)
	if err != nil {
		return "", err
	}
	for _, o := range owners {
		if !forewarn.SameName(o.Name, vm) {
			return o.Name, nil
		}
	}
	return "", nil
}

// checkAddresses refuses an address another VM owns.
func checkAddresses(t *txn, vm *forewarn.VM) error {
	seen := map[string]bool{}
	for _, a := range vm.Addresses {
		owner, err := addressOwner(t, a, vm.Name)
		if err != nil {
			return err
		}
		if owner != "" {
			return forewarn.Errorf(forewarn.ErrConflict, "address %s already belongs to vm %q", a, owner)
		}
		if seen[a] {
			return forewarn.Errorf(forewarn.ErrInvalid, "address %s is given twice", a)
		}
		seen[a] = true
	}
	return nil
}

// domain returns the asked domain if it is in range, or else the least
// used one of the scope, lowest first: round-robin as VMs are added.
func domain(asked *int, count int, kind string, peers []*forewarn.VM, of func(*forewarn.VM) int) (int, error) {
	if asked != nil {
		if *asked < 0 || *asked >= count {
			return 0, forewarn.Errorf(forewarn.ErrInvalid,
				"invalid %s domain %d: the scope has %s domains 0 to %d", kind, *asked, kind, count-1)
		}
		return *asked, nil
	}
	used := make([]int, count)
	for _, p := range peers {
		if d := of(p); d >= 0 && d < count {
			used[d]++
		}
	}
	best := 0
	for d := range used {
		if used[d] < used[best] {
			best = d
		}
	}
	return best, nil
}

// VMs lists a page of the VMs that q selects, in name order. It scans the
// store from q.After and stops once the page is full and one more VM
// matched, so that a page costs a page, not the fleet.
func (f *Fabric) VMs(ctx context.Context, q forewarn.VMQuery) ([]*forewarn.VM, string, error) {
	if err := q.Check(); err != nil {
		return nil, "", err
	}
	if err := checkVMCursor(q.After); err != nil {
		return nil, "", err
	}
	var p page[*forewarn.VM]
	err := f.view(ctx, func(tx forewarn.Tx) error {
		p = page[*forewarn.VM]{limit: q.Limit}
		if err := checkScopeExists(tx, q.Scope); err != nil {
			return err
		}
		return tx.ScanVMs(q.Scope, q.After, func(vm *forewarn.VM) bool {
			return !q.Match(vm) || p.add(vm)
		})
	})
	if err != nil {
		return nil, "", err
	}
	return p.items, p.next(vmCursor), nil
}

// VM returns one VM.
func (f *Fabric) VM(ctx context.Context, name string) (*forewarn.VM, error) {
	var vm *forewarn.VM
	err := f.view(ctx, func(tx forewarn.Tx) error {
		var err error
		vm, err = tx.VM(name)
		return err
	})
	return vm, err
}

// DeleteVM deletes a VM and removes it from the events it is in.
func (f *Fabric) DeleteVM(ctx context.Context, name string) error {
	return f.update(ctx, func(t *txn) error {
		if _, err := t.VM(name); err != nil {
			return err
		}
		return f.deleteVM(t, name)
	})
}

// deleteVM removes a VM from the events of its scope (an event left with no
// VM is cancelled), deletes it, and deletes its scope if it stood alone.
func (f *Fabric) deleteVM(t *txn, name string) error {
	vm, err := t.VM(name)
	if errors.Is(err, forewarn.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	events, err := t.Events(vm.Scope)
	if err != nil {
		return err
	}
	for _, e := range events {
		if err := f.dropResource(t, e, vm.Name); err != nil {
			return err
		}
	}
	if err := t.DeleteVM(vm.Name); err != nil {
		return err
	}
	err = dropChaosOf(t, func(r *forewarn.ChaosRule) bool { return forewarn.SameName(r.VM, vm.Name) })
	if err != nil {
		return err
	}
	t.touch(vm.Scope)
	scope, err := t.Scope(vm.Scope)
	if err != nil {
		return err
	}
	if scope.Kind != forewarn.Standalone {
		return nil
	}
	if rest, err := t.VMs(scope.Name); err != nil || len(rest) > 0 {
		return err
	}
	return deleteScope(t, scope)
}

// dropResource removes a deleted VM from an event, and from what its
// actuator did: a started event whose other VMs are all done completes.
func (f *Fabric) dropResource(t *txn, e *forewarn.Event, vm string) error {
	if !e.Hits(vm) {
		return nil
	}
	e.Deleted = append(e.Deleted, vm)
	if len(e.Resources) == 1 {
		// Its last VM is gone: the history keeps the VM it was for.
		if e.Status == forewarn.Started {
			return f.end(t, e, forewarn.Completed)
		}
		return f.cancel(t, e, "its VMs were deleted before its event started")
	}
	e.Resources = withoutName(e.Resources, vm)
	e.Actuated = withoutName(e.Actuated, vm)
	e.Failed = withoutName(e.Failed, vm)
	if err := f.finish(t, e); err != nil {
		return err
	}
	return t.eventsChanged(e.Scope)
}

// withoutName returns names without name (case-insensitively).
func withoutName(names []string, name string) []string {
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return forewarn.SameName(n, name) })
}
