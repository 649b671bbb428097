package forewarn

import "context"

// Metadata is what the metadata endpoint asks of the control plane.
type Metadata interface {
	// Approve approves events of the VM's scope on the VM's behalf. Every id
	// must be an event in flight in that scope, else nothing is approved and
	// the error wraps ErrInvalid and names the id.
	Approve(ctx context.Context, vm string, ids []string) error
	// Enable notes that a VM of the scope asked for its events (SPEC.md 9);
	// the first request of a scope that has not enabled Scheduled Events
	// is held for the first-call delay. It must not keep ctx, nor start
	// work that uses it, once it has returned: the metadata endpoint
	// recycles the contexts it passes (imds/enablectx.go), which saves
	// four allocations a request.
	Enable(ctx context.Context, scope string) error
}
