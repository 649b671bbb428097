package fleetfile

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/forewarn/forewarn"
)

// defaultScope is the scope of the host's own VM, which prune leaves alone.
const defaultScope = "default"

// state is the fleet as the server has it, by the names' keys, changed as
// the plan goes to what it will be after the steps planned so far.
type state struct {
	scopes map[forewarn.Key]*forewarn.Scope
	vms    map[forewarn.Key]*forewarn.VM
	// owners are the VMs by canonical address.
	owners map[string]*forewarn.VM
}

// loadState reads every scope and VM of the fleet.
func loadState(ctx context.Context, fleet forewarn.Fleet) (*state, error) {
	scopes, err := fleet.Scopes(ctx)
	if err != nil {
		return nil, fmt.Errorf("list scopes: %w", err)
	}
	vms, _, err := fleet.VMs(ctx, forewarn.VMQuery{})
	if err != nil {
		return nil, fmt.Errorf("list vms: %w", err)
	}
	st := &state{
		scopes: make(map[forewarn.Key]*forewarn.Scope, len(scopes)),
		vms:    make(map[forewarn.Key]*forewarn.VM, len(vms)),
		owners: map[string]*forewarn.VM{},
	}
	for _, s := range scopes {
		st.scopes[forewarn.KeyOf(s.Name)] = s
	}
	for _, vm := range vms {
		st.vms[forewarn.KeyOf(vm.Name)] = vm
		for _, a := range vm.Addresses {
			st.owners[canonical(a)] = vm
		}
	}
	return st, nil
}

// removeVM forgets a VM that is to be deleted, and its scope if that was
// the VM's own.
func (st *state) removeVM(vm *forewarn.VM) {
	delete(st.vms, forewarn.KeyOf(vm.Name))
	for _, a := range vm.Addresses {
		if st.owners[canonical(a)] == vm {
			delete(st.owners, canonical(a))
		}
	}
	if st.standalone(vm) {
		delete(st.scopes, forewarn.KeyOf(vm.Scope))
	}
}

// standalone reports whether the server has vm standing alone in its own
// scope.
func (st *state) standalone(vm *forewarn.VM) bool {
	s := st.scopes[forewarn.KeyOf(vm.Scope)]
	return s != nil && s.Kind == forewarn.Standalone
}

// populated reports whether a scope still has VMs.
func (st *state) populated(scope string) bool {
	for _, vm := range st.vms {
		if forewarn.SameName(vm.Scope, scope) {
			return true
		}
	}
	return false
}

// sortedVMs returns the VMs by scope, then name.
func (st *state) sortedVMs() []*forewarn.VM {
	out := make([]*forewarn.VM, 0, len(st.vms))
	for _, vm := range st.vms {
		out = append(out, vm)
	}
	slices.SortFunc(out, func(a, b *forewarn.VM) int {
		if c := forewarn.CompareNames(a.Scope, b.Scope); c != 0 {
			return c
		}
		return forewarn.CompareNames(a.Name, b.Name)
	})
	return out
}

// sortedScopes returns the scopes by name.
func (st *state) sortedScopes() []*forewarn.Scope {
	out := make([]*forewarn.Scope, 0, len(st.scopes))
	for _, s := range st.scopes {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *forewarn.Scope) int { return forewarn.CompareNames(a.Name, b.Name) })
	return out
}

// canonical returns the canonical form of an address, or the address as it
// is if it does not parse.
func canonical(a string) string {
	addr, err := netip.ParseAddr(strings.TrimSpace(a))
	if err != nil {
		return a
	}
	return addr.Unmap().String()
}
