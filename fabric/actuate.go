package fabric

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/forewarn/forewarn"
)

// actuations tracks the actuator runs under way, one per event and VM, each
// with the cancel of its context, and the runs asked for again while under
// way (wanted: a resolve --retry that came while a run held its key).
type actuations struct {
	mu      sync.Mutex
	running map[runKey]context.CancelFunc
	wanted  map[runKey]bool
	wg      sync.WaitGroup
}

// RunsUnderWay returns how many runs of the actuator are under way (not
// counting Simulate's, which need none): for tests that wait until the
// fabric is quiet, and for the curious.
func (f *Fabric) RunsUnderWay() int {
	f.acts.mu.Lock()
	defer f.acts.mu.Unlock()
	return len(f.acts.running)
}

// runKey names a run: an event's ID and one of its VMs.
type runKey struct {
	event string
	vm    forewarn.Key
}

func keyOf(event, vm string) runKey { return runKey{event, forewarn.KeyOf(vm)} }

// claim returns the context of a new run, or false if it is under way.
func (a *actuations) claim(ctx context.Context, key runKey) (context.Context, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running[key] != nil {
		a.wanted[key] = true
		return nil, false
	}
	ctx, cancel := context.WithCancel(ctx)
	a.running[key] = cancel
	return ctx, true
}

// release ends a run; it reports whether the run was asked for again
// meanwhile.
func (a *actuations) release(key runKey) (wanted bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if cancel := a.running[key]; cancel != nil {
		cancel()
		delete(a.running, key)
	}
	wanted = a.wanted[key]
	delete(a.wanted, key)
	return wanted
}

// retain stops the runs whose event has ended or no longer names their VM
// (deleted, or the event resolved), whichever replica made that change:
// a command does not go on against a VM or an event that is gone.
func (a *actuations) retain(live map[runKey]bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for key, cancel := range a.running {
		if !live[key] {
			cancel()
		}
	}
}

// actuate runs the actuator on every VM of a started event that it has
// neither finished nor failed on and is not already running on. Runs that
// were under way when the server stopped are run again this way, by the
// actuator the server has now.
func (f *Fabric) actuate(ctx context.Context, e *forewarn.Event) {
	for _, name := range unactuated(e) {
		key := keyOf(e.ID, name)
		runCtx, ok := f.acts.claim(ctx, key)
		if !ok {
			continue
		}
		f.noteTakeover(e, name)
		f.acts.wg.Go(func() {
			settled := f.actuateVM(runCtx, e.ID, name)
			wanted := f.acts.release(key)
			// The scheduler runs again what is not settled, after a while (the
			// store may be out of reach), and what was asked for while this
			// run held the claim (resolve --retry) at once.
			switch {
			case !settled && ctx.Err() == nil:
				f.clock.AfterFunc(retryAfter, f.poke)
			case wanted:
				f.poke()
			}
		})
	}
}

// actuateVM runs the actuator on one VM and records the outcome. It reports
// whether the run is settled: its outcome recorded, or nothing left to
// run. The stored event decides that, not the snapshot the scheduler
// claimed the run from, which may lag (another replica's change, a record
// whose commit answered an error): an event that ended, no longer names
// the VM, or has its outcome for it already needs no run, and a VM of the
// name created since is not the event's. ctx ends when the server stops,
// or when the event no longer needs the run (retain).
func (f *Fabric) actuateVM(ctx context.Context, id, name string) bool {
	var e *forewarn.Event
	var vm *forewarn.VM
	err := f.view(ctx, func(tx forewarn.Tx) error {
		var err error
		if e, err = tx.Event(id); err != nil {
			return err
		}
		if !needsRun(e, name) {
			return forewarn.ErrNotFound
		}
		vm, err = tx.VM(name)
		if err == nil && vm.CreatedAt.After(e.CreatedAt) {
			return forewarn.ErrNotFound
		}
		return err
	})
	if errors.Is(err, forewarn.ErrNotFound) {
		return true
	} else if err != nil {
		if ctx.Err() == nil {
			f.log.Error("actuate", "event", id, "vm", name, "err", err)
		}
		return false
	}
	runErr := f.cfg.Actuator.Actuate(ctx, e, vm)
	if ctx.Err() != nil {
		// Stopping: the run is done again after the restart, if its event
		// still needs it.
		return false
	}
	failed := false
	err = f.update(ctx, func(t *txn) error {
		e, err := t.Event(id)
		if errors.Is(err, forewarn.ErrNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		failed, err = f.actuated(t, e, name, runErr)
		return err
	})
	if err != nil {
		if ctx.Err() == nil {
			f.log.Error("record actuation; the run is done again", "event", id, "vm", name, "err", err)
		}
		return false
	}
	if failed {
		f.log.Error("actuation failed for good; the event stays Started until an admin resolves it",
			"event", id, "type", e.Type, "vm", name, "err", runErr)
		f.metrics.actuationFailures.WithLabelValues(string(e.Type)).Inc()
	}
	return true
}

// needsRun reports whether a started event still needs a run on the VM.
func needsRun(e *forewarn.Event, vm string) bool {
	return e.Status == forewarn.Started && e.Hits(vm) && !containsName(e.Actuated, vm) && !containsName(e.Failed, vm)
}

// actuated records the outcome of a run on a VM the event still names, and
// completes the event once the actuator has carried it out on every VM
// (finish). It reports whether it recorded a failure.
func (f *Fabric) actuated(t *txn, e *forewarn.Event, vm string, runErr error) (failed bool, err error) {
	switch {
	case !needsRun(e, vm):
		return false, nil // deleted or resolved meanwhile
	case runErr != nil:
		e.Failed = append(e.Failed, vm)
	default:
		e.Actuated = append(e.Actuated, vm)
	}
	return runErr != nil, f.finish(t, e)
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
