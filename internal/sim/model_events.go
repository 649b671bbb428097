package sim

import (
	"cmp"
	"slices"
	"time"

	"github.com/forewarn/forewarn"
)

// eventsOf returns the events in flight of a scope, or of all if scope is
// "", oldest first.
func (m *model) eventsOf(scope string) []*mEvent {
	var out []*mEvent
	for _, e := range m.events {
		if scope == "" || forewarn.SameName(e.Scope, scope) {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b *mEvent) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// started returns the started events, oldest first.
func (m *model) started() []*mEvent {
	return slices.DeleteFunc(m.eventsOf(""), func(e *mEvent) bool { return e.Status != forewarn.Started })
}

// inFlightOn returns the oldest event in flight that names the VM.
func (m *model) inFlightOn(vm *mVM) *mEvent {
	for _, e := range m.eventsOf(vm.Scope) {
		if e.Hits(vm.Name) {
			return e
		}
	}
	return nil
}

func (m *model) newEvent(id string, typ forewarn.EventType, vm *mVM) *mEvent {
	return &mEvent{Event: forewarn.Event{ID: id, Type: typ, Status: forewarn.Scheduled, Scope: m.scopes[key(vm.Scope)].Name,
		Resources: []string{vm.Name}, DurationInSeconds: -1, CreatedAt: m.now}}
}

func (m *model) operate(vmName string, op forewarn.Operation, id string) error {
	o, ok := userOps[op]
	if !ok {
		return fail(forewarn.ErrInvalid)
	}
	vm := m.vms[key(vmName)]
	if vm == nil {
		return fail(forewarn.ErrNotFound)
	}
	scope := m.scopes[key(vm.Scope)]
	switch {
	case op == forewarn.OpEvict && vm.Priority != forewarn.Spot:
		return fail(forewarn.ErrInvalid)
	case op == forewarn.OpTerminate && scope.Kind != forewarn.ScaleSet:
		return fail(forewarn.ErrInvalid)
	case m.inFlightOn(vm) != nil:
		return fail(forewarn.ErrConflict)
	}
	n := 0
	for _, e := range m.eventsOf(scope.Name) {
		if _, user := userOps[e.Operation]; user {
			n++
		}
	}
	if n >= m.conf.MaxUserOps {
		return fail(forewarn.ErrLimit)
	}
	e := m.newEvent(id, o.typ, vm)
	e.Source, e.Description, e.Operation = o.source, o.desc, op
	notice := minNotice[o.typ]
	if o.typ == forewarn.Terminate {
		notice = scope.TN
	}
	m.schedule(e, scope, notice)
	return nil
}

func (m *model) failVM(vmName, id string) error {
	vm := m.vms[key(vmName)]
	if vm == nil {
		return fail(forewarn.ErrNotFound)
	}
	e := m.newEvent(id, forewarn.Reboot, vm)
	e.Source, e.Description, e.Operation = forewarn.Platform, descRepair, forewarn.OpFail
	e.createdStarted = true
	m.events[e.ID] = e
	m.start(e)
	return nil
}

func (m *model) degrade(vmName string, notice time.Duration, id string) error {
	if notice < 0 {
		return fail(forewarn.ErrInvalid)
	}
	if notice == 0 {
		notice = forewarn.DefaultDegradeNotice
	}
	vm := m.vms[key(vmName)]
	if vm == nil {
		return fail(forewarn.ErrNotFound)
	}
	if m.inFlightOn(vm) != nil {
		return fail(forewarn.ErrConflict)
	}
	e := m.newEvent(id, forewarn.Redeploy, vm)
	e.Source, e.Description, e.Operation = forewarn.Platform, descDegraded, forewarn.OpDegrade
	m.schedule(e, m.scopes[key(vm.Scope)], max(notice, minNotice[forewarn.Redeploy]))
	return nil
}

// schedule adds an event with the notice, or starts it at once in a scope
// that gets no notice (SPEC.md 9).
func (m *model) schedule(e *mEvent, scope *mScope, notice time.Duration) {
	m.events[e.ID] = e
	if !m.enabled(scope) {
		e.createdStarted = true
		m.start(e)
		return
	}
	e.NotBefore = ceilSecond(m.now.Add(m.scaled(notice)))
}

func (m *model) start(e *mEvent) {
	e.Status = forewarn.Started
	e.NotBefore = time.Time{}
	e.StartedAt = m.now
	e.clockFrom = m.now
	e.EndsAt = m.now.Add(m.scaled(impactOf(&e.Event)))
	m.restate(e.Resources)
	if e.Type == forewarn.Preempt || e.Type == forewarn.Terminate {
		m.campaignsDue = true // campaigns do not wait for VMs being deleted
	}
}

// restate gives each VM the state of the event in flight on it that
// started last, or running if none has started.
func (m *model) restate(names []string) {
	for _, r := range names {
		vm := m.vms[key(r)]
		if vm == nil {
			continue
		}
		var last *mEvent
		for _, e := range m.eventsOf(vm.Scope) {
			if e.Status == forewarn.Started && e.Hits(vm.Name) && (last == nil || !e.StartedAt.Before(last.StartedAt)) {
				last = e
			}
		}
		vm.State = forewarn.Running
		if last != nil {
			vm.State = stateDuring[last.Type]
		}
	}
}

// unactuated are the VMs of an event the actuator has neither finished
// nor failed on.
func unactuated(e *mEvent) []string {
	var out []string
	for _, r := range e.Resources {
		if !containsName(e.Actuated, r) && !containsName(e.Failed, r) {
			out = append(out, r)
		}
	}
	return out
}

// finish completes a started event once the actuator has carried it out
// on every VM it still names.
func (m *model) finish(e *mEvent) {
	if e.Status != forewarn.Started {
		return
	}
	for _, r := range e.Resources {
		if !containsName(e.Actuated, r) {
			return
		}
	}
	m.complete(e)
}

func (m *model) end(e *mEvent, outcome forewarn.Outcome) {
	delete(m.events, e.ID)
	m.campaignsDue = true
	h := e.Event
	h.Resources = slices.Clone(e.Resources)
	h.Actuated, h.Failed = slices.Clone(e.Actuated), slices.Clone(e.Failed)
	h.Outcome, h.EndedAt = outcome, m.now
	m.history = append(m.history, &h)
	m.ended++
}

func (m *model) complete(e *mEvent) {
	m.end(e, forewarn.Completed)
	if e.Type == forewarn.Preempt || e.Type == forewarn.Terminate {
		for _, r := range slices.Clone(e.Resources) {
			m.removeVM(r)
		}
		return
	}
	m.restate(e.Resources)
}

func (m *model) approve(e *mEvent, by string) {
	if e.Status != forewarn.Scheduled {
		return
	}
	e.ApprovedBy, e.ApprovedAt = by, m.now
	m.start(e)
}

func (m *model) approveAdmin(id string) error {
	e := m.events[key(id)]
	if e == nil {
		return fail(forewarn.ErrNotFound)
	}
	m.approve(e, forewarn.ApprovedByAdmin)
	return nil
}

func (m *model) cancel(id string) error {
	e := m.events[key(id)]
	switch {
	case e == nil:
		return fail(forewarn.ErrNotFound)
	case e.Status == forewarn.Started:
		return fail(forewarn.ErrConflict)
	}
	m.end(e, forewarn.Cancelled)
	m.skipDomain(e, "its event was cancelled by the admin")
	return nil
}

func (m *model) resolve(id string, r forewarn.Resolution) error {
	action := r.Action
	if action != forewarn.ResolveComplete && action != forewarn.ResolveRetry {
		return fail(forewarn.ErrInvalid)
	}
	e := m.events[key(id)]
	switch {
	case e == nil:
		return fail(forewarn.ErrNotFound)
	case e.Status != forewarn.Started:
		return fail(forewarn.ErrConflict)
	case action == forewarn.ResolveComplete && len(e.Failed) == 0 && !r.Force:
		return fail(forewarn.ErrConflict)
	case action == forewarn.ResolveComplete:
		m.complete(e)
		return nil
	case len(e.Failed) == 0:
		return fail(forewarn.ErrConflict)
	}
	e.Failed = nil
	e.clockFrom = m.now
	return nil
}

// approveVM is a POST of approvals by a VM (SPEC.md 4): every id must be
// in flight in its scope, else nothing is approved.
func (m *model) approveVM(vm *mVM, ids []string) error {
	var chosen []*mEvent
	for _, id := range ids {
		e := m.events[key(id)]
		if e == nil || !forewarn.SameName(e.Scope, vm.Scope) {
			return fail(forewarn.ErrInvalid)
		}
		chosen = append(chosen, e)
	}
	for _, e := range chosen {
		m.approve(e, vm.Name)
	}
	return nil
}

// actuated records a run of the actuator that ended, as the fabric does.
func (m *model) actuated(r runResult) {
	e := m.events[key(r.event)]
	if e == nil || e.Status != forewarn.Started || !e.Hits(r.vm) || containsName(e.Actuated, r.vm) || containsName(e.Failed, r.vm) {
		return // deleted or resolved meanwhile
	}
	if r.fail {
		e.Failed = append(e.Failed, r.vm)
	} else {
		e.Actuated = append(e.Actuated, r.vm)
	}
	m.finish(e)
}

func containsName(names []string, name string) bool {
	return slices.ContainsFunc(names, func(n string) bool { return forewarn.SameName(n, name) })
}

// expectsRun reports whether the actuator should be running on the VM of
// the event now: a started event the server's actuator carries out, on a
// VM it has neither finished nor failed on.
func (m *model) expectsRun(e *mEvent, vm string) bool {
	if !m.conf.Actuator || e.Status != forewarn.Started {
		return false
	}
	return !containsName(e.Actuated, vm) && !containsName(e.Failed, vm)
}

// handover reports whether a started event was started by the other
// actuator than the server's now (a restart changed it): DESIGN.md says
// the new one finishes what the old one left. The model does not predict
// when; it checks that it happens, within the bound, and how.
//
// Since main's fix the actuator of the server finishes every started event
// whoever started it, which the model predicts exactly: nothing is handed
// over unpredicted any more.
func (m *model) handover(*mEvent) bool { return false }

// deadline is when an event changes by itself, zero if never: its
// NotBefore, or, with the simulated actuator, the end of its impact if
// some VM is left to carry it out on.
func (m *model) deadline(e *mEvent) time.Time {
	switch {
	case e.Status == forewarn.Scheduled:
		return e.NotBefore
	case !m.conf.Actuator && len(unactuated(e)) > 0:
		return e.EndsAt
	}
	return time.Time{}
}

// tick is the fabric's Tick: it starts the Scheduled events whose NotBefore
// has come and completes the started ones whose impact has ended, oldest
// deadline first, then moves the campaigns on. gone names the events the
// fabric ended whose end the model does not predict (handed over).
func (m *model) tick(gone func(id string) bool, idFor func(campaign, scope string) string) {
	var due []*mEvent
	for _, e := range m.events {
		if m.handover(e) && gone(e.ID) {
			m.complete(e)
			continue
		}
		if d := m.deadline(e); !d.IsZero() && !m.now.Before(d) && !m.handover(e) {
			due = append(due, e)
		}
	}
	slices.SortFunc(due, func(a, b *mEvent) int {
		return cmp.Or(m.deadline(a).Compare(m.deadline(b)), cmp.Compare(a.ID, b.ID))
	})
	for _, e := range due {
		if m.events[e.ID] != e {
			continue // gone meanwhile
		}
		switch {
		case e.Status == forewarn.Scheduled && !m.now.Before(e.NotBefore):
			m.start(e)
		case e.Status == forewarn.Started && !m.conf.Actuator && !m.now.Before(e.EndsAt):
			// The simulated actuator's runs end with the impact.
			names := unactuated(e)
			e.Actuated = append(e.Actuated, names...)
			if len(names) > 0 {
				m.finish(e)
			}
		}
	}
	m.advanceAll(idFor)
}
