package drill

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/plural"
)

// report fills the step's report from what was seen and, if judge, checks
// each expectation: per event, its approval; per VM of the hit scopes, its
// polls; per hit VM and event, its health afterwards.
func (s *stepRun) report(judge bool) {
	s.mu.Lock()
	defer s.mu.Unlock()

	exp := s.step.Expect
	for _, id := range s.order {
		t := s.events[id]
		row := eventRow(t)
		s.sr.Events = append(s.sr.Events, row)
		if row.StartedUnapproved() {
			s.sr.Unapproved = append(s.sr.Unapproved, id)
		}
		// A hardware failure starts at once: it has no approval to judge.
		if judge && row.Operation != forewarn.OpFail {
			if exp.ApproveWithin > 0 {
				s.check(fmt.Sprintf("%s is approved by a VM within %s", row.Title(),
					forewarn.FormatDuration(exp.ApproveWithin)), approvedWithin(row, exp.ApproveWithin).about(id))
			}
			if exp.Approved {
				s.check(fmt.Sprintf("%s does not start unapproved", row.Title()), notUnapproved(row).about(id))
			}
		}
		for _, vm := range row.Resources {
			s.sr.Rows = append(s.sr.Rows, s.vmRow(t, row, vm))
		}
	}
	if s.timedOut != "" {
		s.check("the step ends within its timeout", failed("%s", s.timedOut))
	}
	if !judge {
		return
	}
	s.checkPolls()
	if exp.Health != nil {
		for _, r := range s.sr.Rows {
			if r.Health != nil {
				s.check(fmt.Sprintf("%s is healthy after its %s", r.VM, eventOf(s.sr, r.Event).Type),
					healthDetail(r.Health, exp.Health.Within).about(r.Event))
			}
		}
	}
}

// check appends a check: it passed if detail's failure is "". Its name is
// the same in every run of the drill (no event id), for the CI systems
// that follow a test case from run to run; the detail names the event.
func (s *stepRun) check(name string, d detail) {
	s.sr.Checks = append(s.sr.Checks, &Check{Name: name, Passed: d.failure == "", Detail: cmp.Or(d.failure, d.fine)})
}

// detail is what a check found: why it failed, or how it passed.
type detail struct{ failure, fine string }

// about prefixes the detail with the event it is about.
func (d detail) about(id string) detail {
	if d.failure != "" {
		d.failure = "event " + id + ": " + d.failure
	}
	d.fine = "event " + id + ": " + d.fine
	return d
}

func failed(format string, args ...any) detail  { return detail{failure: fmt.Sprintf(format, args...)} }
func passedf(format string, args ...any) detail { return detail{fine: fmt.Sprintf(format, args...)} }

// approvedWithin checks that a VM approved the event in time.
func approvedWithin(e *EventRow, within time.Duration) detail {
	after := e.ApprovedAt.Sub(e.CreatedAt)
	switch {
	case e.Outcome == forewarn.Cancelled && e.StartedAt.IsZero():
		return passedf("cancelled before it started")
	case e.ApprovedBy == forewarn.ApprovedByAdmin:
		return failed("approved by the admin, not by a VM")
	case e.ApprovedBy != "" && after <= within:
		return passedf("approved by %s after %s", e.ApprovedBy, roundDuration(after))
	case e.ApprovedBy != "":
		return failed("approved by %s after %s", e.ApprovedBy, roundDuration(after))
	case !e.StartedAt.IsZero():
		return failed("%s", unapprovedStart(e))
	}
	return failed("not approved: still Scheduled when the step ended")
}

// notUnapproved checks that the event did not start without an approval.
func notUnapproved(e *EventRow) detail {
	switch {
	case e.StartedUnapproved():
		return failed("%s", unapprovedStart(e))
	case e.ApprovedBy != "":
		return passedf("approved by %s", e.ApprovedBy)
	case e.Outcome == forewarn.Cancelled:
		return passedf("cancelled before it started")
	}
	return passedf("not started when the step ended")
}

// unapprovedStart says how an event started without approval.
func unapprovedStart(e *EventRow) string {
	if e.StartedAtOnce() {
		return "started at once, with no notice: its scope had not enabled Scheduled Events (no VM of it had polled)"
	}
	return fmt.Sprintf("started unapproved at its NotBefore, %s after it appeared", roundDuration(e.StartedAt.Sub(e.CreatedAt)))
}

// healthDetail says how a health check went.
func healthDetail(h *HealthResult, within time.Duration) detail {
	if h.Passed {
		return passedf("healthy %s after the event ended", roundDuration(time.Duration(h.After)))
	}
	return failed("not healthy within %s of the event's end (%s): %s",
		forewarn.FormatDuration(within), plural.Count(h.Attempts, "attempt", "attempts"), h.Output)
}

// checkPolls checks that every VM of the hit scopes polled during the
// step, and that each hit VM was served its event.
func (s *stepRun) checkPolls() {
	if !s.step.Expect.Polled {
		return
	}
	if s.pollsErr != nil {
		s.check("every VM of the hit scopes polls", failed("the server did not answer which VMs polled: %v", s.pollsErr))
		return
	}
	keys := make([]forewarn.Key, 0, len(s.vms))
	for k := range s.vms {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := s.vms[k]
		var unseen []string
		for _, id := range s.order {
			if s.events[id].ev.Hits(v.name) {
				if _, ok := v.seen[id]; !ok {
					unseen = append(unseen, id)
				}
			}
		}
		var d detail
		switch {
		case !v.polled:
			s.sr.NeverPolled = append(s.sr.NeverPolled, v.name)
			d = failed("never polled while the step ran: in Azure it would get no notice")
		case len(unseen) > 0:
			d = failed("polled, but was never served event %s, which hit it", listNames(unseen))
		default:
			d = passedf("polled")
		}
		s.check(fmt.Sprintf("%s (scope %s) polls", v.name, v.scope), d)
	}
}

// eventRow is an event as the report shows it.
func eventRow(t *tracked) *EventRow {
	ev := t.ev
	return &EventRow{ID: ev.ID, Type: ev.Type, Scope: ev.Scope, Resources: ev.Resources,
		Operation: ev.Operation, CreatedAt: ev.CreatedAt, NotBefore: t.notBefore,
		ApprovedBy: ev.ApprovedBy, ApprovedAt: ev.ApprovedAt, StartedAt: ev.StartedAt,
		EndedAt: ev.EndedAt, Outcome: ev.Outcome}
}

// vmRow is what one hit VM did about the event.
func (s *stepRun) vmRow(t *tracked, e *EventRow, vm string) *VMRow {
	row := &VMRow{Event: e.ID, VM: vm, Health: t.health[forewarn.KeyOf(vm)]}
	if v := s.vms[forewarn.KeyOf(vm)]; v != nil {
		if at, ok := v.seen[e.ID]; ok {
			d := forewarn.Duration(max(at.Sub(e.CreatedAt), 0))
			row.SeenAfter = &d
		}
	}
	switch {
	case forewarn.SameName(e.ApprovedBy, vm):
		d := forewarn.Duration(e.ApprovedAt.Sub(e.CreatedAt))
		row.ApprovedAfter = &d
		row.Outcome = "approved"
	case e.ApprovedBy == forewarn.ApprovedByAdmin:
		row.Outcome = "approved by the admin"
	case e.ApprovedBy != "":
		row.Outcome = "approved by " + e.ApprovedBy
	case e.Operation == forewarn.OpFail && !e.StartedAt.IsZero():
		row.Outcome = "started at once (hardware failure)"
	case e.StartedUnapproved():
		row.Outcome = "started unapproved"
	case e.Outcome == forewarn.Cancelled:
		row.Outcome = "cancelled"
	default:
		row.Outcome = "in flight"
	}
	return row
}
