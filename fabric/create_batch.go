package fabric

import (
	"context"
	"errors"
	"slices"

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
		if err := prefetchNew(t, scopes, vms); err != nil {
			return err
		}
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

// prefetchNew reads ahead what creating the scopes and VMs of a batch
// reads, if the store reads ahead (etcd): the scopes, the VMs and the
// addresses, checked free, and the scopes the VMs join. On etcd, a round
// trip or two for each VM otherwise.
func prefetchNew(t *txn, scopes []forewarn.ScopeSpec, vms []forewarn.VMSpec) error {
	p, ok := t.Tx.(interface {
		PrefetchVMs(names, addresses []string) error
	})
	if !ok {
		return nil
	}
	var names, addresses, joined []string
	for _, s := range scopes {
		joined = append(joined, s.Name)
	}
	for _, vm := range vms {
		names = append(names, vm.Name)
		addresses = append(addresses, vm.Addresses...)
		if vm.Scope != "" {
			joined = append(joined, vm.Scope)
		} else {
			joined = append(joined, vm.Name) // its standalone scope
		}
	}
	if err := t.prefetch(slices.Compact(slices.Sorted(slices.Values(joined)))); err != nil {
		return err
	}
	return p.PrefetchVMs(names, addresses)
}

// about says which VM of a batch a user error is about, keeping its kind.
func about(err error, vm string) error {
	var e *forewarn.Error
	if !errors.As(err, &e) {
		return err
	}
	return forewarn.Errorf(e.Kind, "vm %q: %s", vm, e.Message)
}
