package admin_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/forewarn/forewarn"
)

// userEvent is what a user operation creates.
type userEvent struct {
	typ    forewarn.EventType
	notice time.Duration
	desc   string
}

var userEvents = map[forewarn.Operation]userEvent{
	forewarn.OpRestart:   {forewarn.Reboot, 15 * time.Minute, "Virtual machine is going to be restarted as requested by authorized user."},
	forewarn.OpRedeploy:  {forewarn.Redeploy, 10 * time.Minute, "Virtual machine is going to be redeployed as requested by authorized user."},
	forewarn.OpEvict:     {forewarn.Preempt, 30 * time.Second, ""},
	forewarn.OpTerminate: {forewarn.Terminate, 5 * time.Minute, ""},
}

func (f *fakeFleet) Operate(_ context.Context, name string, op forewarn.Operation) (*forewarn.Event, error) {
	defer f.lock()()
	if f.err != nil {
		return nil, f.err
	}
	vm, ok := f.vms[key(name)]
	if !ok {
		return nil, forewarn.Errorf(forewarn.ErrNotFound, "VM %q not found", name)
	}
	ue, ok := userEvents[op]
	if !ok {
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "unknown operation %q", op)
	}
	if err := f.checkOperate(vm); err != nil {
		return nil, err
	}
	now := f.tick()
	f.nextID++
	e := &forewarn.Event{
		ID: fmt.Sprintf("EVT-%04d", f.nextID), Type: ue.typ, Status: forewarn.Scheduled,
		Scope: vm.Scope, Resources: []string{vm.Name}, Source: forewarn.User,
		Description: ue.desc, DurationInSeconds: -1, Operation: op,
		NotBefore: now.Add(ue.notice).Truncate(time.Second), CreatedAt: now,
	}
	f.events[e.ID] = e
	f.order = append(f.order, e.ID)
	f.changes++
	return clone(e), nil
}

// checkOperate refuses an operation on a VM that has an event in flight, or
// in a scope that has reached the limit of user operations.
func (f *fakeFleet) checkOperate(vm *forewarn.VM) error {
	inScope := 0
	for _, e := range f.events {
		if e.Hits(vm.Name) {
			return forewarn.Errorf(forewarn.ErrConflict, "VM %q already has event %s in flight", vm.Name, e.ID)
		}
		if e.Source == forewarn.User && forewarn.SameName(e.Scope, vm.Scope) {
			inScope++
		}
	}
	if inScope >= userLimit {
		return forewarn.Errorf(forewarn.ErrLimit, "scope %q already has %d user operations in flight", vm.Scope, inScope)
	}
	return nil
}

// Events lists a page of the events q selects, in the order they were
// created; its cursor is the last event's id, which must still be in
// flight.
func (f *fakeFleet) Events(_ context.Context, q forewarn.EventQuery) ([]*forewarn.Event, string, error) {
	defer f.lock()()
	f.eventQueries = append(f.eventQueries, q)
	if f.err != nil {
		return nil, "", f.err
	}
	order := f.order
	if q.After != "" {
		i := slices.Index(order, q.After)
		if i < 0 {
			return nil, "", forewarn.Errorf(forewarn.ErrInvalid, "invalid after %q: no such event in flight", q.After)
		}
		order = order[i+1:]
	}
	var out []*forewarn.Event
	for _, id := range order {
		if e := f.events[id]; q.Match(e) {
			out = append(out, clone(e))
		}
	}
	return fakePage(out, q.Limit, func(e *forewarn.Event) string { return e.ID })
}

func (f *fakeFleet) Event(_ context.Context, id string) (*forewarn.Event, error) {
	defer f.lock()()
	if f.err != nil {
		return nil, f.err
	}
	e, ok := f.events[id]
	if !ok {
		return nil, forewarn.Errorf(forewarn.ErrNotFound, "event %q not found", id)
	}
	return clone(e), nil
}

func (f *fakeFleet) Approve(_ context.Context, id string) (*forewarn.Event, error) {
	defer f.lock()()
	if f.err != nil {
		return nil, f.err
	}
	e, ok := f.events[id]
	if !ok {
		return nil, forewarn.Errorf(forewarn.ErrNotFound, "event %q not found", id)
	}
	if e.Status == forewarn.Scheduled {
		now := f.tick()
		e.Status, e.NotBefore = forewarn.Started, time.Time{}
		e.ApprovedBy, e.ApprovedAt = forewarn.ApprovedByAdmin, now
		e.StartedAt, e.EndsAt = now, now.Add(60*time.Second)
		f.changes++
	}
	return clone(e), nil
}

func (f *fakeFleet) Cancel(_ context.Context, id string) (*forewarn.Event, error) {
	defer f.lock()()
	if f.err != nil {
		return nil, f.err
	}
	e, ok := f.events[id]
	if !ok {
		return nil, forewarn.Errorf(forewarn.ErrNotFound, "event %q not found", id)
	}
	if e.Status != forewarn.Scheduled {
		return nil, forewarn.Errorf(forewarn.ErrConflict, "event %s has started and can no longer be cancelled", id)
	}
	delete(f.events, id)
	f.order = deleteID(f.order, id)
	e.Outcome, e.EndedAt = forewarn.Cancelled, f.tick()
	f.history = append([]*forewarn.Event{e}, f.history...)
	f.changes++
	return clone(e), nil
}

func deleteID(ids []string, id string) []string {
	out := ids[:0]
	for _, v := range ids {
		if v != id {
			out = append(out, v)
		}
	}
	return out
}

func (f *fakeFleet) History(_ context.Context, limit int) ([]*forewarn.Event, error) {
	defer f.lock()()
	if f.err != nil {
		return nil, f.err
	}
	if limit < 1 {
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "limit %d out of range", limit)
	}
	var out []*forewarn.Event
	for _, e := range f.history[:min(limit, len(f.history))] {
		out = append(out, clone(e))
	}
	return out, nil
}

func (f *fakeFleet) HistoryPage(_ context.Context, q forewarn.HistoryQuery) ([]*forewarn.Event, string, error) {
	defer f.lock()()
	if f.err != nil {
		return nil, "", f.err
	}
	history := f.history
	if q.After != "" {
		i := slices.IndexFunc(history, func(e *forewarn.Event) bool { return e.ID == q.After })
		if i < 0 {
			return nil, "", forewarn.Errorf(forewarn.ErrInvalid, "invalid after %q: no such event in the history", q.After)
		}
		history = history[i+1:]
	}
	out := make([]*forewarn.Event, 0, len(history))
	for _, e := range history {
		out = append(out, clone(e))
	}
	return fakePage(out, q.Limit, func(e *forewarn.Event) string { return e.ID })
}
