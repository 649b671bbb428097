package fabric

import (
	"context"

	"github.com/forewarn/forewarn"
)

// Events lists a page of the events in flight that q selects, oldest
// first, beginning after the event q.After stands for.
func (f *Fabric) Events(ctx context.Context, q forewarn.EventQuery) ([]*forewarn.Event, string, error) {
	if err := q.Check(); err != nil {
		return nil, "", err
	}
	after, err := parseEventCursor(q.After)
	if err != nil {
		return nil, "", err
	}
	var p page[*forewarn.Event]
	err = f.view(ctx, func(tx forewarn.Tx) error {
		p = page[*forewarn.Event]{limit: q.Limit}
		if err := checkScopeExists(tx, q.Scope); err != nil {
			return err
		}
		events, err := tx.Events(q.Scope)
		if err != nil {
			return err
		}
		for _, e := range events {
			if after.before(e) && q.Match(e) && !p.add(e) {
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return p.items, p.next(cursorOf), nil
}

// Event returns one event in flight.
func (f *Fabric) Event(ctx context.Context, id string) (*forewarn.Event, error) {
	var e *forewarn.Event
	err := f.view(ctx, func(tx forewarn.Tx) error {
		var err error
		e, err = tx.Event(id)
		return err
	})
	return e, err
}

// Approve approves an event as the admin: a Scheduled event starts at once.
func (f *Fabric) Approve(ctx context.Context, id string) (*forewarn.Event, error) {
	var e *forewarn.Event
	err := f.update(ctx, func(t *txn) error {
		var err error
		if e, err = t.Event(id); err != nil {
			return err
		}
		return f.approve(t, e, forewarn.ApprovedByAdmin)
	})
	return e, err
}

// Cancel removes a Scheduled event; a started one cannot be cancelled.
func (f *Fabric) Cancel(ctx context.Context, id string) (*forewarn.Event, error) {
	var e *forewarn.Event
	err := f.update(ctx, func(t *txn) error {
		var err error
		if e, err = t.Event(id); err != nil {
			return err
		}
		if e.Status == forewarn.Started {
			return forewarn.Errorf(forewarn.ErrConflict,
				"event %s has started and can no longer be cancelled", e.ID)
		}
		return f.cancel(t, e, "its event was cancelled by the admin")
	})
	return e, err
}

// approvalOf reads what a VM's approval of events approves: the VM, and
// the event of each id, which must be in flight in the VM's scope, else
// the approval is refused (ErrInvalid, or ErrNotFound for a VM that does
// not exist). It writes nothing.
func (f *Fabric) approvalOf(t *txn, vmName string, ids []string) (*forewarn.VM, []*forewarn.Event, error) {
	vm, err := t.VM(vmName)
	if err != nil {
		return nil, nil, err
	}
	events, err := t.Events(vm.Scope)
	if err != nil {
		return nil, nil, err
	}
	byID := make(map[forewarn.Key]*forewarn.Event, len(events))
	for _, e := range events {
		byID[forewarn.KeyOf(e.ID)] = e
	}
	chosen := make([]*forewarn.Event, 0, len(ids))
	for _, id := range ids {
		e, ok := byID[forewarn.KeyOf(id)]
		if !ok {
			return nil, nil, forewarn.Errorf(forewarn.ErrInvalid,
				"EventId %q is not an event of this VM's scope", id)
		}
		chosen = append(chosen, e)
	}
	return vm, chosen, nil
}

// approveAll approves the events chosen on behalf of vm.
func (f *Fabric) approveAll(t *txn, vm *forewarn.VM, chosen []*forewarn.Event) error {
	for _, e := range chosen {
		if err := f.approve(t, e, vm.Name); err != nil {
			return err
		}
	}
	return nil
}

// Resolve settles a started event: complete it, or run the actuator again
// on the VMs it failed on.
func (f *Fabric) Resolve(ctx context.Context, id string, r forewarn.Resolution) (*forewarn.Event, error) {
	if r.Action != forewarn.ResolveComplete && r.Action != forewarn.ResolveRetry {
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "invalid action %q: want complete or retry", r.Action)
	}
	var e *forewarn.Event
	err := f.update(ctx, func(t *txn) error {
		var err error
		if e, err = t.Event(id); err != nil {
			return err
		}
		if e.Status != forewarn.Started {
			return forewarn.Errorf(forewarn.ErrConflict, "event %s has not started: approve or cancel it instead", e.ID)
		}
		if r.Action == forewarn.ResolveComplete {
			if len(e.Failed) == 0 && !r.Force {
				return forewarn.Errorf(forewarn.ErrConflict,
					"event %s has no failed actuation to resolve: it completes by itself once its actuator is done"+
						" (to cut it short, force it: maintenance resolve --complete --force)", e.ID)
			}
			return f.complete(t, e)
		}
		if len(e.Failed) == 0 {
			return forewarn.Errorf(forewarn.ErrConflict, "event %s has no failed VM to retry", e.ID)
		}
		e.Failed = nil
		t.changes.wakeup = true
		return t.PutEvent(e)
	})
	return e, err
}
