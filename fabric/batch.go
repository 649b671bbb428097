package fabric

import (
	"context"
	"errors"

	"github.com/forewarn/forewarn"
)

// CreateBatch creates scopes, then VMs (which may be in those scopes), in
// one transaction: all of them or, on the first error, none. A large fleet
// is created a batch at a time, not a commit per VM.
func (f *Fabric) CreateBatch(ctx context.Context, scopes []forewarn.ScopeSpec, vms []forewarn.VMSpec) error {
	newScopes := make([]*forewarn.Scope, len(scopes))
	for i, spec := range scopes {
		s, err := newScope(spec)
		if err != nil {
			return err
		}
		newScopes[i] = s
	}
	newVMs := make([]*forewarn.VM, len(vms))
	for i, spec := range vms {
		vm, err := newVM(spec)
		if err != nil {
			return err
		}
		newVMs[i] = vm
	}
	return f.update(ctx, func(t *txn) error {
		for _, s := range newScopes {
			s.CreatedAt = t.now
			if err := putNewScope(t, s); err != nil {
				return err
			}
		}
		for i, vm := range newVMs {
			vm.CreatedAt = t.now
			if err := nameFree(t, vm.Name); err != nil {
				return err
			}
			scope, err := f.scopeFor(t, vms[i])
			if err != nil {
				return about(err, vm.Name)
			}
			if err := putNewVM(t, vm, scope, vms[i]); err != nil {
				return about(err, vm.Name)
			}
		}
		return nil
	})
}

// about says which VM of a batch a user error is about, keeping its kind.
func about(err error, vm string) error {
	var e *forewarn.Error
	if !errors.As(err, &e) {
		return err
	}
	return forewarn.Errorf(e.Kind, "vm %q: %s", vm, e.Message)
}
