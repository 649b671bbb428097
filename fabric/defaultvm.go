package fabric

import (
	"context"
	"errors"

	"github.com/forewarn/forewarn"
)

// The meta keys of the host's default VM: whether the first start made it,
// its name and its ID.
const (
	metaInitialized = "initialized"
	metaDefaultVM   = "default-vm"    // its name
	metaDefaultVMID = "default-vm-id" // its ID: a VM created later under its name is not it
)

// DefaultScope is the scope of the host's default VM.
const DefaultScope = "default"

// EnsureDefaultVM sets up the host's own VM (SPEC.md 8). At the first start
// with an empty inventory it creates the VM, named host, in scope
// "default"; at every start it gives the default VM, if it still exists,
// the addresses given (those another VM owns are skipped). A VM the user
// created under its name after deleting it is the user's, not the host's.
func (f *Fabric) EnsureDefaultVM(ctx context.Context, host string, addrs []string) (*forewarn.VM, error) {
	addrs, err := parseAddresses(addrs)
	if err != nil {
		return nil, err
	}
	var vm *forewarn.VM
	err = f.update(ctx, func(t *txn) error {
		init, err := t.Meta(metaInitialized)
		if err != nil {
			return err
		}
		if init == nil {
			if vm, err = f.createDefaultVM(t, host); err != nil {
				return err
			}
		} else if vm, err = defaultVM(t); vm == nil || err != nil {
			return err
		}
		return f.readdress(t, vm, addrs)
	})
	return vm, err
}

// createDefaultVM marks the store initialised and, if it holds no VM,
// creates the default one.
func (f *Fabric) createDefaultVM(t *txn, host string) (*forewarn.VM, error) {
	if err := t.PutMeta(metaInitialized, []byte("true")); err != nil {
		return nil, err
	}
	if exists, err := anyVM(t); err != nil || exists {
		return nil, err
	}
	scope, err := t.Scope(DefaultScope)
	if errors.Is(err, forewarn.ErrNotFound) {
		if scope, err = newScope(forewarn.ScopeSpec{Name: DefaultScope}); err != nil {
			return nil, err
		}
		scope.CreatedAt = t.now
		err = putNewScope(t, scope)
	}
	if err != nil {
		return nil, err
	}
	vm, err := newVM(forewarn.VMSpec{Name: "default"})
	if err != nil {
		return nil, err
	}
	vm.Name = host // the host name as it is (SPEC.md 8)
	vm.CreatedAt = t.now
	if err := putNewVM(t, vm, scope, forewarn.VMSpec{}); err != nil {
		return nil, err
	}
	if err := t.PutMeta(metaDefaultVMID, []byte(vm.ID)); err != nil {
		return nil, err
	}
	return vm, t.PutMeta(metaDefaultVM, []byte(vm.Name))
}

// HoldsFleet reports whether the store holds a fleet: a forewarn serve has
// started on it, or it holds VMs or scopes (a store a tool filled). One
// that does not is empty: starting there starts a new fleet.
func HoldsFleet(ctx context.Context, s forewarn.Store) (bool, error) {
	holds := false
	err := s.View(ctx, func(tx forewarn.Tx) error {
		init, err := tx.Meta(metaInitialized)
		if err != nil || init != nil {
			holds = init != nil
			return err
		}
		err = tx.ScanVMs("", "", func(*forewarn.VM) bool {
			holds = true
			return false
		})
		if err != nil || holds {
			return err
		}
		scopes, err := tx.Scopes()
		holds = len(scopes) > 0
		return err
	})
	return holds, err
}

// anyVM reports whether the store holds a VM, reading one at most.
func anyVM(t *txn) (bool, error) {
	found := false
	err := t.ScanVMs("", "", func(*forewarn.VM) bool {
		found = true
		return false
	})
	return found, err
}

// defaultVM returns the default VM, or nil if there is none any more: its
// name is gone, or taken by another VM (another ID). A store from before
// the ID was kept takes the VM of the name as the default one.
func defaultVM(t *txn) (*forewarn.VM, error) {
	name, err := t.Meta(metaDefaultVM)
	if err != nil || name == nil {
		return nil, err
	}
	vm, err := t.VM(string(name))
	if errors.Is(err, forewarn.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	id, err := t.Meta(metaDefaultVMID)
	switch {
	case err != nil:
		return nil, err
	case id == nil:
		return vm, t.PutMeta(metaDefaultVMID, []byte(vm.ID))
	case string(id) != vm.ID:
		return nil, nil
	}
	return vm, nil
}

// readdress gives a VM the addresses no other VM owns.
func (f *Fabric) readdress(t *txn, vm *forewarn.VM, addrs []string) error {
	if vm == nil {
		return nil
	}
	vm.Addresses = vm.Addresses[:0]
	for _, a := range addrs {
		o, err := addressOwner(t, a, vm.Name)
		if err != nil {
			return err
		}
		if o != "" {
			f.log.Warn("default VM skips an address another VM owns", "address", a, "owner", o)
			continue
		}
		vm.Addresses = append(vm.Addresses, a)
	}
	if err := t.PutVM(vm); err != nil {
		return err
	}
	t.touch(vm.Scope)
	return nil
}
