package fabric

import (
	"fmt"
	"time"

	"github.com/forewarn/forewarn"
)

// start starts a Scheduled event: it shows Started with no NotBefore, and
// its VMs take the simulated impact until EndsAt, or, with an actuator,
// until the actuator has carried it out on each of them.
func (f *Fabric) start(t *txn, e *forewarn.Event) error {
	e.Status = forewarn.Started
	e.NotBefore = time.Time{}
	e.StartedAt = t.now
	if f.cfg.Actuator == nil {
		e.EndsAt = t.now.Add(f.scaled(impactOf(e)))
	}
	if err := t.PutEvent(e); err != nil {
		return fmt.Errorf("start event %s: %w", e.ID, err)
	}
	if err := f.setState(t, e, stateDuring[e.Type]); err != nil {
		return err
	}
	t.started = append(t.started, e)
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
	t.approvals = append(t.approvals, by)
	return f.start(t, e)
}

// complete ends a started event: evicted and terminated VMs are deleted,
// the others run again, and the event goes to the history.
func (f *Fabric) complete(t *txn, e *forewarn.Event) error {
	if err := f.end(t, e, forewarn.Completed); err != nil {
		return err
	}
	if e.Type == forewarn.Preempt || e.Type == forewarn.Terminate {
		for _, name := range e.Resources {
			if err := f.deleteVM(t, name); err != nil {
				return err
			}
		}
		return nil
	}
	return f.setState(t, e, forewarn.Running)
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
	t.ended = append(t.ended, e)
	return t.eventsChanged(e.Scope)
}

// setState sets the simulated state of the VMs an event hits.
func (f *Fabric) setState(t *txn, e *forewarn.Event, state forewarn.VMState) error {
	for _, name := range e.Resources {
		vm, err := t.VM(name)
		if err != nil {
			continue // deleted meanwhile
		}
		vm.State = state
		if err := t.PutVM(vm); err != nil {
			return fmt.Errorf("set state of vm %q: %w", name, err)
		}
		t.touch(vm.Scope)
	}
	return nil
}

// impactOf is how long the simulated impact of an event lasts, unscaled:
// its DurationInSeconds when it gives one, else that of its kind.
func impactOf(e *forewarn.Event) time.Duration {
	switch {
	case e.Operation == forewarn.OpFail:
		return repairImpact
	case e.DurationInSeconds > 0:
		return time.Duration(e.DurationInSeconds) * time.Second
	}
	return impact[e.Type]
}
