package admin_test

import (
	"context"
	"fmt"
	"time"

	"github.com/forewarn/forewarn"
)

// The descriptions of the hardware events (SPEC.md 10).
const (
	failDescription    = "Host server is undergoing an emergency repair."
	degradeDescription = "Host server is going to be serviced because of degraded hardware."
)

func (f *fakeFleet) Fail(_ context.Context, name string) (*forewarn.Event, error) {
	defer f.lock()()
	if f.err != nil {
		return nil, f.err
	}
	vm, ok := f.vms[key(name)]
	if !ok {
		return nil, forewarn.Errorf(forewarn.ErrNotFound, "VM %q not found", name)
	}
	now := f.tick()
	e := f.addEvent(&forewarn.Event{
		Type: forewarn.Reboot, Status: forewarn.Started, Scope: vm.Scope,
		Resources: []string{vm.Name}, Source: forewarn.Platform, Description: failDescription,
		DurationInSeconds: -1, Operation: forewarn.OpFail, CreatedAt: now, StartedAt: now,
		EndsAt: now.Add(10 * time.Minute),
	})
	return clone(e), nil
}

func (f *fakeFleet) Degrade(_ context.Context, name string, notice time.Duration) (*forewarn.Event, error) {
	defer f.lock()()
	if f.err != nil {
		return nil, f.err
	}
	vm, ok := f.vms[key(name)]
	if !ok {
		return nil, forewarn.Errorf(forewarn.ErrNotFound, "VM %q not found", name)
	}
	if notice < 0 {
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "notice %s is negative", notice)
	}
	if notice == 0 {
		notice = forewarn.DefaultDegradeNotice
	}
	for _, e := range f.events {
		if e.Hits(vm.Name) {
			return nil, forewarn.Errorf(forewarn.ErrConflict, "VM %q already has event %s in flight", vm.Name, e.ID)
		}
	}
	now := f.tick()
	e := f.addEvent(&forewarn.Event{
		Type: forewarn.Redeploy, Status: forewarn.Scheduled, Scope: vm.Scope,
		Resources: []string{vm.Name}, Source: forewarn.Platform, Description: degradeDescription,
		DurationInSeconds: -1, Operation: forewarn.OpDegrade, CreatedAt: now, NotBefore: now.Add(notice),
	})
	return clone(e), nil
}

// addEvent numbers a new event and puts it in flight. f.mu must be held.
func (f *fakeFleet) addEvent(e *forewarn.Event) *forewarn.Event {
	f.nextID++
	e.ID = fmt.Sprintf("EVT-%04d", f.nextID)
	f.events[e.ID] = e
	f.order = append(f.order, e.ID)
	f.changes++
	return e
}

func (f *fakeFleet) Resolve(_ context.Context, id string, r forewarn.Resolution) (*forewarn.Event, error) {
	defer f.lock()()
	if f.err != nil {
		return nil, f.err
	}
	e, ok := f.events[id]
	if !ok {
		return nil, forewarn.Errorf(forewarn.ErrNotFound, "event %q not found", id)
	}
	if e.Status != forewarn.Started || (len(e.Failed) == 0 && !(r.Force && r.Action == forewarn.ResolveComplete)) {
		return nil, forewarn.Errorf(forewarn.ErrConflict, "event %s has no failed actuation to resolve", id)
	}
	switch r.Action {
	case forewarn.ResolveRetry:
		e.Failed = nil
	case forewarn.ResolveComplete:
		delete(f.events, id)
		f.order = deleteID(f.order, id)
		e.Outcome, e.EndedAt = forewarn.Completed, f.tick()
		f.history = append([]*forewarn.Event{e}, f.history...)
	default:
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "unknown action %q", r.Action)
	}
	f.changes++
	return clone(e), nil
}

// failActuation starts an event, if it has not started, and marks the
// actuation of the given VMs as failed for good, as an actuator would.
func (f *fakeFleet) failActuation(id string, vms ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e := f.events[id]
	if e.Status == forewarn.Scheduled {
		e.Status, e.NotBefore, e.StartedAt = forewarn.Started, time.Time{}, f.tick()
	}
	e.Failed = append(e.Failed, vms...)
}

// enableScope marks a scope as having enabled Scheduled Events.
func (f *fakeFleet) enableScope(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.scopes[key(name)]
	s.EnabledAt = f.tick()
	s.LastSeen = s.EnabledAt
}
