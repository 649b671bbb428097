package fleetfile

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/forewarn/forewarn"
)

// standaloneLabel stands for a standalone VM's scope in a conflict; it is
// no valid name, so no scope of the file can match it.
const standaloneLabel = "(standalone)"

// vmStep plans a declared VM.
func (st *state) vmStep(vm VM) step {
	have := st.vms[forewarn.KeyOf(vm.Spec.Name)]
	if have == nil {
		return st.createVM(vm)
	}
	c := Change{Kind: KindVM, Name: vm.Spec.Name, Action: ActionUnchanged}
	if d := st.vmDiffs(vm.Spec, have); len(d) > 0 {
		c.Action, c.Detail = ActionConflict, d.String()
	}
	return step{Change: c, line: vm.Line}
}

// createVM plans a new VM, in conflict if the fleet has given its name to a
// scope that a standalone VM would need, or one of its addresses to
// another VM.
func (st *state) createVM(vm VM) step {
	c := Change{Kind: KindVM, Name: vm.Spec.Name}
	var clash []string
	if s := st.scopes[forewarn.KeyOf(vm.Spec.Name)]; vm.Spec.Scope == "" && s != nil {
		clash = append(clash, fmt.Sprintf(
			"name: the fleet has a scope %q, and a standalone VM's own scope takes its name", s.Name))
	}
	for _, a := range vm.Spec.Addresses {
		if owner := st.owners[a]; owner != nil {
			clash = append(clash, fmt.Sprintf("addresses: %s belongs to vm %q", a, owner.Name))
		}
	}
	if len(clash) > 0 {
		c.Action, c.Detail = ActionConflict, strings.Join(clash, "; ")
		return step{Change: c, line: vm.Line}
	}
	c.Action, c.Detail = ActionCreate, describeVM(vm.Spec)
	spec := vm.Spec
	return step{Change: c, line: vm.Line, vm: &spec}
}

// vmDiffs lists what differs between a declared VM and the server's.
// Domains the file leaves out match any.
func (st *state) vmDiffs(spec forewarn.VMSpec, have *forewarn.VM) diffs {
	var d diffs
	haveScope := have.Scope
	if st.standalone(have) {
		haveScope = standaloneLabel
	}
	wantScope := spec.Scope
	if wantScope == "" {
		wantScope = standaloneLabel
	}
	if !forewarn.SameName(wantScope, haveScope) {
		d.add("scope", wantScope, haveScope)
	}
	if spec.UpdateDomain != nil {
		d.add("updateDomain", *spec.UpdateDomain, have.UpdateDomain)
	}
	if spec.FaultDomain != nil {
		d.add("faultDomain", *spec.FaultDomain, have.FaultDomain)
	}
	d.add("addresses", addressList(spec.Addresses), addressList(have.Addresses))
	priority := have.Priority
	if priority == "" {
		priority = forewarn.Regular
	}
	d.add("priority", spec.Priority, priority)
	return d
}

// addressList writes a set of addresses sorted, in canonical form, as
// "[a, b]".
func addressList(addrs []string) string {
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = canonical(a)
	}
	slices.Sort(out)
	return "[" + strings.Join(out, ", ") + "]"
}

// describeVM summarises a VM to create.
func describeVM(spec forewarn.VMSpec) string {
	parts := []string{"standalone"}
	if spec.Scope != "" {
		parts[0] = "scope " + spec.Scope
	}
	if spec.UpdateDomain != nil {
		parts = append(parts, fmt.Sprintf("update domain %d", *spec.UpdateDomain))
	}
	if spec.FaultDomain != nil {
		parts = append(parts, fmt.Sprintf("fault domain %d", *spec.FaultDomain))
	}
	parts = append(parts, string(spec.Priority))
	if len(spec.Addresses) > 0 {
		parts = append(parts, strings.Join(spec.Addresses, ", "))
	}
	return strings.Join(parts, ", ")
}

// deleteVM plans the deletion of a VM absent from the file.
func deleteVM(vm *forewarn.VM, standalone bool) step {
	detail := "scope " + vm.Scope
	if standalone {
		detail = "standalone, with its scope"
	}
	name := vm.Name
	return step{
		Change: Change{Action: ActionDelete, Kind: KindVM, Name: name, Detail: detail},
		do: func(ctx context.Context, fleet forewarn.Fleet) error {
			return fleet.DeleteVM(ctx, name)
		},
	}
}
