package fabric

import (
	"context"

	"github.com/forewarn/forewarn"
)

// Metadata returns the fabric's side of the metadata endpoint: approvals
// by VMs and enabling.
func (f *Fabric) Metadata() forewarn.Metadata { return metadata{f} }

type metadata struct{ f *Fabric }

var _ forewarn.Metadata = metadata{}

// Approve approves events on behalf of a VM of their scope, committed with
// the other changes that come meanwhile (group), waiting at most
// storeTimeout for the store.
func (m metadata) Approve(ctx context.Context, vmName string, ids []string) error {
	return m.f.commitGrouped(ctx, func(t *txn) (func() error, error) {
		vm, chosen, err := m.f.approvalOf(t, vmName, ids)
		if err != nil {
			return nil, err
		}
		return func() error { return m.f.approveAll(t, vm, chosen) }, nil
	})
}

// Enable notes a request of a VM of the scope for its events.
func (m metadata) Enable(ctx context.Context, scope string) error {
	return m.f.enable(ctx, scope)
}
