package fabric

import (
	"fmt"
	"slices"
	"time"

	"github.com/forewarn/forewarn"
)

// start starts a Scheduled event: it shows Started with no NotBefore, its
// VMs show its impact, and the actuator carries it out on each of them
// (actuate, or the scheduler at EndsAt for Simulate); once it has, the event
// completes (finish).
func (f *Fabric) start(t *txn, e *forewarn.Event) error {
	if e.ApprovedBy == "" && !e.NotBefore.IsZero() { // started by its time
		t.changes.lateStarts = append(t.changes.lateStarts, t.now.Sub(e.NotBefore))
	}
	e.Status = forewarn.Started
	e.NotBefore = time.Time{}
	e.StartedAt = t.now
	e.EndsAt = t.now.Add(f.scaled(forewarn.Impact(e)))
	e.Actuator = f.cfg.Actuator.Name()
	if err := t.PutEvent(e); err != nil {
		return fmt.Errorf("start event %s: %w", e.ID, err)
	}
	if err := f.restate(t, e.Scope, e.Resources); err != nil {
		return err
	}
	t.changes.started = append(t.changes.started, e)
	return t.eventsChanged(e.Scope)
}

// approve records who approved a Scheduled event and starts it, in the same
// change (SPEC.md 3). An event already started is left as it is.
func (f *Fabric) approve(t *txn, e *forewarn.Event, by string) error {
	if e.Status != forewarn.Scheduled {
		return nil
	}
	e.ApprovedBy = by
	e.ApprovedAt = t.now
	t.changes.approvals = append(t.changes.approvals, by)
	return f.start(t, e)
}

// finish completes a started event once the actuator has carried it out on
// every VM it still names, and else stores it as it is: it is the one way
// an actuation completes an event, whichever actuator ran it and whatever
// VMs were deleted meanwhile.
func (f *Fabric) finish(t *txn, e *forewarn.Event) error {
	if e.Status == forewarn.Started && f.actuatedAll(e) {
		return f.complete(t, e)
	}
	return t.PutEvent(e)
}

// deletesVMs reports whether an event deletes its VMs when it completes.
func deletesVMs(e *forewarn.Event) bool {
	return e.Type == forewarn.Preempt || e.Type == forewarn.Terminate
}

// complete ends a started event: evicted and terminated VMs are deleted,
// the others take the state of what else is in flight on them, and the
// event goes to the history.
func (f *Fabric) complete(t *txn, e *forewarn.Event) error {
	if err := f.end(t, e, forewarn.Completed); err != nil {
		return err
	}
	if deletesVMs(e) {
		for _, name := range e.Resources {
			if err := f.deleteVM(t, name); err != nil {
				return err
			}
		}
		return nil
	}
	return f.restate(t, e.Scope, e.Resources)
}

// cancel ends a Scheduled event as cancelled, and skips its update domain
// in its campaign, if it has one, for the reason given. A cancelled
// campaign's own events end through cancelBatch, which writes the
// campaign's progress itself.
func (f *Fabric) cancel(t *txn, e *forewarn.Event, reason string) error {
	if err := f.end(t, e, forewarn.Cancelled); err != nil {
		return err
	}
	return skipDomain(t, e, reason)
}

// end removes an event from the document and appends it to the history.
func (f *Fabric) end(t *txn, e *forewarn.Event, outcome forewarn.Outcome) error {
	if err := t.DeleteEvent(e.ID); err != nil {
		return fmt.Errorf("end event %s: %w", e.ID, err)
	}
	e.Outcome = outcome
	e.EndedAt = t.now
	if err := t.AppendHistory(e, t.historyKeep); err != nil {
		return fmt.Errorf("history of event %s: %w", e.ID, err)
	}
	t.changes.ended = append(t.changes.ended, e)
	return t.eventsChanged(e.Scope)
}

// restate sets the state of each VM named, of the scope, from the events
// in flight on it: the impact of the one started last, or running if none
// has started. It reads the scope's VMs, which the transaction keeps for
// the scope's snapshot, rather than each VM.
func (f *Fabric) restate(t *txn, scope string, names []string) error {
	vms, err := t.VMs(scope)
	if err != nil {
		return err
	}
	for _, name := range names {
		i := slices.IndexFunc(vms, func(vm *forewarn.VM) bool { return forewarn.SameName(vm.Name, name) })
		if i < 0 {
			continue // deleted meanwhile
		}
		vm := vms[i]
		state, err := stateOf(t, vm)
		if err != nil {
			return err
		}
		if state == vm.State {
			continue
		}
		vm.State = state
		if err := t.PutVM(vm); err != nil {
			return fmt.Errorf("set state of vm %q: %w", name, err)
		}
		t.touch(vm.Scope)
	}
	return nil
}

// stateOf is the state the events in flight give a VM.
func stateOf(t *txn, vm *forewarn.VM) (forewarn.VMState, error) {
	events, err := t.Events(vm.Scope)
	if err != nil {
		return "", err
	}
	var last *forewarn.Event
	for _, e := range events {
		if e.Status == forewarn.Started && e.Hits(vm.Name) && (last == nil || !e.StartedAt.Before(last.StartedAt)) {
			last = e
		}
	}
	if last == nil {
		return forewarn.Running, nil
	}
	return stateDuring[last.Type], nil
}
