package fabric

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/forewarn/forewarn"
)

// Fail creates a hardware failure of a VM: a Platform Reboot, Started from
// its first appearance. It does not count toward the user limit and is
// allowed while the VM has another event in flight (SPEC.md 10).
func (f *Fabric) Fail(ctx context.Context, vmName string) (*forewarn.Event, error) {
	var e *forewarn.Event
	err := f.update(ctx, func(t *txn) error {
		vm, err := t.VM(vmName)
		if err != nil {
			return err
		}
		e = platformEvent(t, forewarn.Reboot, vm, descRepair, -1)
		e.Operation = forewarn.OpFail
		t.changes.created = append(t.changes.created, e)
		return f.start(t, e)
	})
	return e, err
}

// Degrade schedules a Platform Redeploy of a VM whose hardware is degraded,
// with days of notice by default.
func (f *Fabric) Degrade(ctx context.Context, vmName string, notice time.Duration) (*forewarn.Event, error) {
	if notice < 0 {
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "invalid notice %s: must not be negative", notice)
	}
	if notice == 0 {
		notice = forewarn.DefaultDegradeNotice
	}
	var e *forewarn.Event
	err := f.update(ctx, func(t *txn) error {
		vm, err := t.VM(vmName)
		if err != nil {
			return err
		}
		if err := checkFree(t, vm); err != nil {
			return err
		}
		scope, err := t.Scope(vm.Scope)
		if err != nil {
			return err
		}
		e = platformEvent(t, forewarn.Redeploy, vm, descDegraded, -1)
		e.Operation = forewarn.OpDegrade
		return f.schedule(t, e, scope, noticeOf(forewarn.Redeploy, scope, notice))
	})
	return e, err
}

// platformEvent returns a new Platform event on one VM.
func platformEvent(t *txn, typ forewarn.EventType, vm *forewarn.VM, desc string, duration int) *forewarn.Event {
	return &forewarn.Event{
		ID:                uuid.NewString(),
		Type:              typ,
		Status:            forewarn.Scheduled,
		Scope:             vm.Scope,
		Resources:         []string{vm.Name},
		Source:            forewarn.Platform,
		Description:       desc,
		DurationInSeconds: duration,
		CreatedAt:         t.now,
	}
}

// checkFree refuses a VM that already has an event in flight.
func checkFree(t *txn, vm *forewarn.VM) error {
	in, err := t.inFlightOn(vm.Scope, vm.Name)
	if err != nil {
		return err
	}
	if in != nil {
		return forewarn.Errorf(forewarn.ErrConflict,
			"vm %q already has event %s (%s, %s) in flight", vm.Name, in.ID, in.Type, in.Status)
	}
	return nil
}
