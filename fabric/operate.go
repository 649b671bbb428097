package fabric

import (
	"time"

	"context"

	"github.com/google/uuid"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/plural"
)

// Operate runs a user operation on a VM and returns the event it created.
// It commits with the other changes that come meanwhile (group).
func (f *Fabric) Operate(ctx context.Context, vmName string, op forewarn.Operation) (*forewarn.Event, error) {
	o, ok := operations[op]
	if !ok {
		return nil, forewarn.Errorf(forewarn.ErrInvalid,
			"unknown operation %q: want restart, redeploy, evict or terminate", op)
	}
	var e *forewarn.Event
	err := f.commitGrouped(ctx, func(t *txn) (func() error, error) {
		vm, err := t.VM(vmName)
		if err != nil {
			return nil, err
		}
		scope, err := t.Scope(vm.Scope)
		if err != nil {
			return nil, err
		}
		if err := f.checkOperation(t, op, vm, scope); err != nil {
			return nil, err
		}
		e = &forewarn.Event{
			ID:                uuid.NewString(),
			Type:              o.eventType,
			Status:            forewarn.Scheduled,
			Scope:             scope.Name,
			Resources:         []string{vm.Name},
			Source:            o.source,
			Description:       o.description,
			DurationInSeconds: o.duration,
			Operation:         op,
			CreatedAt:         t.now,
		}
		return func() error { return f.schedule(t, e, scope, noticeOf(e.Type, scope, 0)) }, nil
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// checkOperation refuses an operation the VM or its scope does not allow.
func (f *Fabric) checkOperation(t *txn, op forewarn.Operation, vm *forewarn.VM, scope *forewarn.Scope) error {
	switch {
	case op == forewarn.OpEvict && vm.Priority != forewarn.Spot:
		return forewarn.Errorf(forewarn.ErrInvalid,
			"vm %q is not a spot VM: only spot VMs can be evicted", vm.Name)
	case op == forewarn.OpTerminate && scope.Kind != forewarn.ScaleSet:
		return forewarn.Errorf(forewarn.ErrInvalid,
			"vm %q is not in a scale set: only scale-set VMs can be terminated", vm.Name)
	}
	if err := checkFree(t, vm); err != nil {
		return err
	}
	events, err := t.Events(scope.Name)
	if err != nil {
		return err
	}
	n := 0
	for _, e := range events {
		if userOperation(e) {
			n++
		}
	}
	if n >= f.cfg.MaxUserOps {
		return forewarn.Errorf(forewarn.ErrLimit,
			"scope %q already has %s in flight, the most allowed (serve --max-user-ops)",
			scope.Name, plural.Count(n, "user operation", "user operations"))
	}
	return nil
}

// schedule adds a new event with the given notice (unscaled), or starts it at once if
// its scope has not enabled Scheduled Events (SPEC.md 9).
func (f *Fabric) schedule(t *txn, e *forewarn.Event, scope *forewarn.Scope, notice time.Duration) error {
	t.changes.created = append(t.changes.created, e)
	if !f.enabled(scope, t.now) {
		return f.start(t, e)
	}
	e.NotBefore = forewarn.CeilSecond(t.now.Add(f.scaled(notice)))
	if err := t.PutEvent(e); err != nil {
		return err
	}
	return t.eventsChanged(e.Scope)
}
