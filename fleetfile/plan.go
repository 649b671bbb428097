package fleetfile

import (
	"context"
	"fmt"

	"github.com/forewarn/forewarn"
)

// Plan tells what Apply would do, and changes nothing. With prune it lists
// first the VMs, then the scopes to delete; then each scope of the file
// followed by its VMs, then the standalone VMs, each to create, unchanged,
// or in conflict with the fleet.
func Plan(ctx context.Context, fleet forewarn.Fleet, f *File, prune bool) ([]Change, error) {
	steps, err := plan(ctx, fleet, f, prune)
	if err != nil {
		return nil, err
	}
	changes := make([]Change, len(steps))
	for i, s := range steps {
		changes[i] = s.Change
	}
	return changes, nil
}

// plan reads the fleet and works out the steps that bring it to the file.
func plan(ctx context.Context, fleet forewarn.Fleet, f *File, prune bool) ([]step, error) {
	if f == nil {
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "no fleet file")
	}
	st, err := loadState(ctx, fleet)
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", f.Name, err)
	}
	var steps []step
	if prune {
		steps = st.prune(f)
	}
	for _, s := range f.Scopes {
		steps = append(steps, st.scopeStep(s))
		for _, vm := range s.VMs {
			steps = append(steps, st.vmStep(vm))
		}
	}
	for _, vm := range f.VMs {
		steps = append(steps, st.vmStep(vm))
	}
	return steps, nil
}

// prune plans the deletion of the VMs, then of the scopes, absent from the
// file, except those of the scope "default". A standalone VM's scope goes
// with it.
func (st *state) prune(f *File) []step {
	scopes, vms := f.names()
	var steps []step
	for _, vm := range st.sortedVMs() {
		if vms[forewarn.KeyOf(vm.Name)] || forewarn.SameName(vm.Scope, defaultScope) {
			continue
		}
		steps = append(steps, deleteVM(vm, st.standalone(vm)))
		st.removeVM(vm)
	}
	for _, s := range st.sortedScopes() {
		if scopes[forewarn.KeyOf(s.Name)] || s.Kind == forewarn.Standalone ||
			forewarn.SameName(s.Name, defaultScope) || st.populated(s.Name) {
			continue
		}
		steps = append(steps, deleteScope(s))
		delete(st.scopes, forewarn.KeyOf(s.Name))
	}
	return steps
}

// names returns the keys of the names of the scopes and of the VMs the file
// declares.
func (f *File) names() (scopes, vms map[forewarn.Key]bool) {
	scopes, vms = map[forewarn.Key]bool{}, map[forewarn.Key]bool{}
	for _, s := range f.Scopes {
		scopes[forewarn.KeyOf(s.Spec.Name)] = true
		for _, vm := range s.VMs {
			vms[forewarn.KeyOf(vm.Spec.Name)] = true
		}
	}
	for _, vm := range f.VMs {
		vms[forewarn.KeyOf(vm.Spec.Name)] = true
	}
	return scopes, vms
}
