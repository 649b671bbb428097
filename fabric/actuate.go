package fabric

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/forewarn/forewarn"
)

// actuations tracks the actuator runs under way, one per event and VM.
type actuations struct {
	mu      sync.Mutex
	running map[string]bool
	wg      sync.WaitGroup
}

func (a *actuations) claim(key string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running[key] {
		return false
	}
	a.running[key] = true
	return true
}

func (a *actuations) release(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.running, key)
}

// actuate runs the actuator on every VM of a started event that it has
// neither finished nor failed on and is not already running on. Runs that
// were under way when the server stopped are run again this way, by the
// actuator the server has now.
func (f *Fabric) actuate(ctx context.Context, e *forewarn.Event) {
	for _, name := range unactuated(e) {
		key := e.ID + "/" + strings.ToLower(name)
		if !f.acts.claim(key) {
			continue
		}
		f.noteTakeover(e, name)
		f.acts.wg.Go(func() {
			defer f.acts.release(key)
			f.actuateVM(ctx, e.ID, name)
		})
	}
}

// actuateVM runs the actuator on one VM and records the outcome.
func (f *Fabric) actuateVM(ctx context.Context, id, name string) {
	var e *forewarn.Event
	var vm *forewarn.VM
	err := f.view(ctx, func(tx forewarn.Tx) error {
		var err error
		if e, err = tx.Event(id); err != nil {
			return err
		}
		vm, err = tx.VM(name)
		return err
	})
	if err != nil {
		if !errors.Is(err, forewarn.ErrNotFound) && ctx.Err() == nil {
			f.log.Error("actuate", "event", id, "vm", name, "err", err)
		}
		return
	}
	runErr := f.cfg.Actuator.Actuate(ctx, e, vm)
	if ctx.Err() != nil {
		return // stopping: the run is done again after the restart
	}
	if runErr != nil {
		f.log.Error("actuation failed for good; the event stays Started until an admin resolves it",
			"event", id, "type", e.Type, "vm", name, "err", runErr)
		f.metrics.actuationFailures.WithLabelValues(string(e.Type)).Inc()
	}
	err = f.update(ctx, func(t *txn) error {
		e, err := t.Event(id)
		if errors.Is(err, forewarn.ErrNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		return f.actuated(t, e, name, runErr)
	})
	if err != nil && ctx.Err() == nil {
		f.log.Error("record actuation", "event", id, "vm", name, "err", err)
	}
}

// actuated records the outcome of a run on a VM the event still names, and
// completes the event once the actuator has carried it out on every VM
// (finish).
func (f *Fabric) actuated(t *txn, e *forewarn.Event, vm string, runErr error) error {
	switch {
	case e.Status != forewarn.Started || !e.Hits(vm) ||
		containsName(e.Actuated, vm) || containsName(e.Failed, vm):
		return nil // deleted or resolved meanwhile
	case runErr != nil:
		e.Failed = append(e.Failed, vm)
	default:
		e.Actuated = append(e.Actuated, vm)
	}
	return f.finish(t, e)
}

// actuateTimed records the runs of a timed actuator (Simulate) done on every
// VM of a started event it has not finished, once their time has come.
func (f *Fabric) actuateTimed(t *txn, e *forewarn.Event, a timed) error {
	if t.now.Before(a.runsEnd(e)) {
		return nil
	}
	names := unactuated(e)
	for _, name := range names {
		f.noteTakeover(e, name)
		e.Actuated = append(e.Actuated, name)
	}
	if len(names) == 0 {
		return nil
	}
	return f.finish(t, e)
}

// unactuated returns the VMs of an event the actuator has neither finished
// nor failed on.
func unactuated(e *forewarn.Event) []string {
	var out []string
	for _, name := range e.Resources {
		if !containsName(e.Actuated, name) && !containsName(e.Failed, name) {
			out = append(out, name)
		}
	}
	return out
}

// noteTakeover logs a run of an event that another actuator started: the
// server was restarted with another --actuator, and this one finishes it.
func (f *Fabric) noteTakeover(e *forewarn.Event, vm string) {
	if e.Actuator != "" && e.Actuator != f.cfg.Actuator.Name() {
		f.log.Info("finishing an event another actuator started",
			"event", e.ID, "vm", vm, "started_by", e.Actuator, "finished_by", f.cfg.Actuator.Name())
	}
}

func (f *Fabric) actuatedAll(e *forewarn.Event) bool {
	for _, name := range e.Resources {
		if !containsName(e.Actuated, name) {
			return false
		}
	}
	return true
}

func containsName(names []string, name string) bool {
	return slices.ContainsFunc(names, func(n string) bool { return forewarn.SameName(n, name) })
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
		if e, err = t.Event(strings.ToLower(id)); err != nil {
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
		t.wakeup = true
		return t.PutEvent(e)
	})
	return e, err
}
