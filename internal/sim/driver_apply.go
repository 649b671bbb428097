package sim

import (
	"context"
	"errors"
	"fmt"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/fleetfile"
)

func (d *driver) apply(op Op) error {
	f, err := fleetfile.Parse("sim.yaml", []byte(op.Fleet))
	if err != nil {
		return nil // the file itself is refused: nothing of the fleet's to check
	}
	mf := &modelFleet{Fleet: d.w.fleet, d: d}
	_, err = fleetfile.Apply(d.ctx, mf, f, op.Prune)
	if mf.fault != nil {
		return fmt.Errorf("apply: %w", mf.fault)
	}
	if err != nil {
		if !errors.Is(err, forewarn.ErrConflict) {
			return fmt.Errorf("apply: %w", err)
		}
		return nil
	}
	return d.checkApplied(f, op.Prune)
}

// checkApplied checks that the fleet is as the file says after an apply
// that succeeded.
func (d *driver) checkApplied(f *fleetfile.File, prune bool) error {
	want := map[string]bool{"default": true}
	wantVMs := map[string]bool{}
	for _, s := range f.Scopes {
		ms := d.m.scopes[key(s.Spec.Name)]
		if ms == nil || ms.Kind != s.Spec.Kind || ms.UDs != s.Spec.UpdateDomains {
			return fmt.Errorf("apply: scope %s is not as the file declares it", s.Spec.Name)
		}
		want[key(s.Spec.Name)] = true
		for _, v := range s.VMs {
			vm := d.m.vms[key(v.Spec.Name)]
			if vm == nil || !forewarn.SameName(vm.Scope, s.Spec.Name) {
				return fmt.Errorf("apply: vm %s is not in scope %s as the file declares it", v.Spec.Name, s.Spec.Name)
			}
			wantVMs[key(v.Spec.Name)] = true
		}
	}
	if !prune {
		return nil
	}
	for k, vm := range d.m.vms {
		if !wantVMs[k] && !forewarn.SameName(vm.Scope, "default") {
			return fmt.Errorf("apply with prune left vm %s, which the file does not name", vm.Name)
		}
	}
	for k := range d.m.scopes {
		if !want[k] && len(d.m.vmsOf(k)) == 0 {
			return fmt.Errorf("apply with prune left scope %s, which the file does not name", k)
		}
	}
	return nil
}

// modelFleet is the Fleet a fleet file is applied through: every change
// goes to the admin API and to the model, and their answers must agree.
type modelFleet struct {
	forewarn.Fleet
	d     *driver
	fault error
}

func (f *modelFleet) check(err error) error {
	if err != nil && f.fault == nil {
		f.fault = err
	}
	return nil
}

func (f *modelFleet) CreateScope(ctx context.Context, spec forewarn.ScopeSpec) (*forewarn.Scope, error) {
	s, err := f.Fleet.CreateScope(ctx, spec)
	f.check(expect("create scope "+spec.Name, err, f.d.m.createScope(spec)))
	return s, err
}

func (f *modelFleet) DeleteScope(ctx context.Context, name string) error {
	err := f.Fleet.DeleteScope(ctx, name)
	f.check(expect("delete scope "+name, err, f.d.m.deleteScope(name)))
	return err
}

func (f *modelFleet) CreateVM(ctx context.Context, spec forewarn.VMSpec) (*forewarn.VM, error) {
	vm, err := f.Fleet.CreateVM(ctx, spec)
	id := ""
	if err == nil {
		id = vm.ID
	}
	f.check(expect("create vm "+spec.Name, err, f.d.m.createVM(spec, id)))
	return vm, err
}

func (f *modelFleet) DeleteVM(ctx context.Context, name string) error {
	err := f.Fleet.DeleteVM(ctx, name)
	f.check(expect("delete vm "+name, err, f.d.m.deleteVM(name)))
	return err
}

func (f *modelFleet) CreateBatch(ctx context.Context, scopes []forewarn.ScopeSpec, vms []forewarn.VMSpec) error {
	err := f.Fleet.CreateBatch(ctx, scopes, vms)
	f.check(expect("create batch", err, f.d.m.createBatch(scopes, vms)))
	return err
}
