package admin_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/forewarn/forewarn"
)

func (f *fakeFleet) AddChaos(_ context.Context, spec forewarn.ChaosSpec) (*forewarn.ChaosRule, error) {
	defer f.lock()()
	if f.err != nil {
		return nil, f.err
	}
	if err := f.checkChaos(spec); err != nil {
		return nil, err
	}
	now := f.tick()
	f.nextChaos++
	r := &forewarn.ChaosRule{
		ID: fmt.Sprintf("CHAOS-%04d", f.nextChaos), ChaosSpec: spec,
		CreatedAt: now, Until: now.Add(time.Duration(spec.For)),
	}
	f.chaos = append(f.chaos, r)
	f.changes++
	return clone(r), nil
}

// checkChaos refuses a chaos spec the fabric would refuse.
func (f *fakeFleet) checkChaos(spec forewarn.ChaosSpec) error {
	switch {
	case spec.Scope != "" && spec.VM != "":
		return forewarn.Errorf(forewarn.ErrInvalid, "name a scope or a VM, not both")
	case spec.Status == 0 && spec.Delay <= 0:
		return forewarn.Errorf(forewarn.ErrInvalid, "give a status or a delay")
	case spec.Status != 0 && !slices.Contains(forewarn.ChaosStatuses, spec.Status):
		return forewarn.Errorf(forewarn.ErrInvalid, "status %d: use 410, 429 or 500", spec.Status)
	case !(spec.Fraction > 0 && spec.Fraction <= 1):
		return forewarn.Errorf(forewarn.ErrInvalid, "fraction %v: more than 0 and at most 1", spec.Fraction)
	case spec.For <= 0:
		return forewarn.Errorf(forewarn.ErrInvalid, "for must be positive")
	}
	if _, ok := f.scopes[key(spec.Scope)]; spec.Scope != "" && !ok {
		return forewarn.Errorf(forewarn.ErrNotFound, "scope %q not found", spec.Scope)
	}
	if _, ok := f.vms[key(spec.VM)]; spec.VM != "" && !ok {
		return forewarn.Errorf(forewarn.ErrNotFound, "VM %q not found", spec.VM)
	}
	return nil
}

func (f *fakeFleet) Chaos(context.Context) ([]*forewarn.ChaosRule, error) {
	defer f.lock()()
	if f.err != nil {
		return nil, f.err
	}
	var out []*forewarn.ChaosRule
	for _, r := range f.chaos {
		if f.now.Before(r.Until) {
			out = append(out, clone(r))
		}
	}
	return out, nil
}

func (f *fakeFleet) DeleteChaos(_ context.Context, id string) error {
	defer f.lock()()
	if f.err != nil {
		return f.err
	}
	i := slices.IndexFunc(f.chaos, func(r *forewarn.ChaosRule) bool { return r.ID == id })
	if i < 0 {
		return forewarn.Errorf(forewarn.ErrNotFound, "chaos rule %q not found", id)
	}
	f.chaos = slices.Delete(f.chaos, i, i+1)
	f.changes++
	return nil
}
