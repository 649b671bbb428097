package fleetfile

import (
	"context"
	"errors"
	"fmt"

	"github.com/forewarn/forewarn"
)

// createBatch is how many scopes and VMs Apply creates in one
// forewarn.Fleet.CreateBatch: a request and a transaction for a thousand,
// where one each made applying a large fleet take minutes.
const createBatch = 1000

// Apply brings the fleet to the file: it plans, refuses the whole file if
// the plan has any conflict (a *ConflictError, which wraps
// forewarn.ErrConflict and lists them all, and nothing changed), then makes the changes in the
// order of the plan. The scopes and VMs to create go in batches, each
// created all or none; a batch the store finds too large is halved. Apply
// returns every change of the plan, unchanged ones included. If a call
// fails midway it returns the changes made up to it and the error.
func Apply(ctx context.Context, fleet forewarn.Fleet, f *File, prune bool) ([]Change, error) {
	steps, err := plan(ctx, fleet, f, prune)
	if err != nil {
		return nil, err
	}
	if err := conflictError(f.Name, steps); err != nil {
		return nil, err
	}
	a := &applier{ctx: ctx, fleet: fleet, file: f.Name, size: createBatch, done: make([]Change, 0, len(steps))}
	for _, s := range steps {
		if err := a.step(s); err != nil {
			return a.done, err
		}
	}
	return a.done, a.flush()
}

// applier makes the steps of a plan, holding the creates (and the
// unchanged steps after them, to keep the plan's order) for a batch.
type applier struct {
	ctx   context.Context
	fleet forewarn.Fleet
	file  string
	size  int // scopes and VMs a batch, halved while the store finds it too large
	held  []step
	// creating counts the creates in held.
	creating int
	done     []Change
}

func (a *applier) step(s step) error {
	if s.do == nil {
		a.held = append(a.held, s)
		if s.creates() {
			a.creating++
		}
		if a.creating < createBatch {
			return nil
		}
		return a.flush()
	}
	if err := a.flush(); err != nil {
		return err
	}
	if err := a.ctx.Err(); err != nil {
		return fmt.Errorf("apply %s: %w", a.file, err)
	}
	if err := s.do(a.ctx, a.fleet); err != nil {
		return fmt.Errorf("apply %s: %s %s %s: %w", a.file, s.Action, s.Kind, s.Name, err)
	}
	a.done = append(a.done, s.Change)
	return nil
}

// flush creates what is held, a batch at a time.
func (a *applier) flush() error {
	for len(a.held) > 0 {
		n := prefix(a.held, a.size)
		err := a.create(a.held[:n])
		if errors.Is(err, forewarn.ErrTooLarge) && a.size > 1 {
			a.size /= 2
			continue
		}
		if err != nil {
			return fmt.Errorf("apply %s: create %s: %w", a.file, describeBatch(a.held[:n]), err)
		}
		for _, s := range a.held[:n] {
			a.done = append(a.done, s.Change)
		}
		a.held = a.held[n:]
	}
	a.creating = 0
	return nil
}

// create creates the scopes and VMs of the steps in one batch.
func (a *applier) create(steps []step) error {
	var scopes []forewarn.ScopeSpec
	var vms []forewarn.VMSpec
	for _, s := range steps {
		switch {
		case s.scope != nil:
			scopes = append(scopes, *s.scope)
		case s.vm != nil:
			vms = append(vms, *s.vm)
		}
	}
	if len(scopes)+len(vms) == 0 {
		return nil
	}
	if err := a.ctx.Err(); err != nil {
		return err
	}
	return a.fleet.CreateBatch(a.ctx, scopes, vms)
}

// countCreates counts the steps that create something.
func countCreates(steps []step) int {
	n := 0
	for _, s := range steps {
		if s.creates() {
			n++
		}
	}
	return n
}

// prefix returns the length of the shortest prefix of steps that holds
// size creates, or of all of them.
func prefix(steps []step, size int) int {
	n := 0
	for i, s := range steps {
		if s.creates() {
			if n++; n == size {
				return i + 1
			}
		}
	}
	return len(steps)
}

// describeBatch names what a batch creates: "vm web-1", or "3 scopes and
// VMs, scope web to vm web-2".
func describeBatch(steps []step) string {
	var first, last *step
	for i := range steps {
		if steps[i].creates() {
			if first == nil {
				first = &steps[i]
			}
			last = &steps[i]
		}
	}
	if first == last {
		return first.Kind + " " + first.Name
	}
	return fmt.Sprintf("%d scopes and VMs, %s %s to %s %s", countCreates(steps), first.Kind, first.Name, last.Kind, last.Name)
}
