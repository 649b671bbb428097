package forewarntest

import (
	"context"
	"net/netip"
	"slices"
	"sync"

	"github.com/forewarn/forewarn"
)

// addressing is the control plane as the admin API serves it, giving each
// VM created without an address one of its own, so that Client can call
// as it.
type addressing struct {
	forewarn.Fleet
	mu   sync.Mutex
	next netip.Addr // the address the next VM without one gets
}

var _ forewarn.Fleet = (*addressing)(nil)

// firstAddress is the address the first VM without one gets; the
// following ones count up from it, skipping .0 and .255.
var firstAddress = netip.AddrFrom4([4]byte{127, 1, 0, 1})

func newAddressing(f forewarn.Fleet) *addressing {
	return &addressing{Fleet: f, next: firstAddress}
}

// CreateVM creates the VM, with an address of its own if it has none.
func (a *addressing) CreateVM(ctx context.Context, spec forewarn.VMSpec) (*forewarn.VM, error) {
	a.address(&spec)
	return a.Fleet.CreateVM(ctx, spec)
}

// CreateBatch creates the scopes and VMs, each VM with an address of its
// own if it has none.
func (a *addressing) CreateBatch(ctx context.Context, scopes []forewarn.ScopeSpec, vms []forewarn.VMSpec) error {
	vms = slices.Clone(vms)
	for i := range vms {
		a.address(&vms[i])
	}
	return a.Fleet.CreateBatch(ctx, scopes, vms)
}

// address gives spec the next free address if it has none.
func (a *addressing) address(spec *forewarn.VMSpec) {
	if len(spec.Addresses) > 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	spec.Addresses = []string{a.next.String()}
	a.next = a.next.Next()
	for b := a.next.As4(); b[3] == 0 || b[3] == 255; b = a.next.As4() {
		a.next = a.next.Next()
	}
}
