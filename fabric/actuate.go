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
// were under way when the server stopped are run again this way.
func (f *Fabric) actuate(ctx context.Context, e *forewarn.Event) {
	for _, name := range e.Resources {
		if containsName(e.Actuated, name) || containsName(e.Failed, name) {
			continue
		}
		key := e.ID + "/" + strings.ToLower(name)
		if !f.acts.claim(key) {
			continue
		}
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
	err = f.update(ctx, func(t *txn) error { return f.actuated(t, id, name, runErr) })
	if err != nil && ctx.Err() == nil {
		f.log.Error("record actuation", "event", id, "vm", name, "err", err)
	}
}

// actuated records the outcome of a run, and completes the event once the
// actuator has carried it out on every VM it still names.
func (f *Fabric) actuated(t *txn, id, vm string, runErr error) error {
	e, err := t.Event(id)
	if errors.Is(err, forewarn.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	if runErr != nil {
		e.Failed = append(e.Failed, vm)
		return t.PutEvent(e)
	}
	e.Actuated = append(e.Actuated, vm)
	if f.actuatedAll(e) {
		return f.complete(t, e)
	}
	return t.PutEvent(e)
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
func (f *Fabric) Resolve(ctx context.Context, id string, action forewarn.ResolveAction) (*forewarn.Event, error) {
	if action != forewarn.ResolveComplete && action != forewarn.ResolveRetry {
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "invalid action %q: want complete or retry", action)
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
		if action == forewarn.ResolveComplete {
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
