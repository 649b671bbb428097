package sim

import (
	"fmt"
	"slices"
	"time"

	"github.com/forewarn/forewarn"
)

// The invariants of events' lives and campaigns' walks, which do not lean
// on the model's predictions.

// checkStarts: no event starts before its NotBefore unless approved, except
// one created Started (a hardware failure, or a scope with no notice); a
// scope whose VMs asked within the window gives notice, one whose VMs did
// not gives none.
func (d *driver) checkStarts(s *state) error {
	for _, e := range s.events {
		first := !d.obs.seen[e.ID]
		d.obs.seen[e.ID] = true
		scope := d.m.scopes[key(e.Scope)]
		if e.Status == forewarn.Scheduled {
			d.obs.scheduled[e.ID] = e.NotBefore
			if first && !d.m.conf.AlwaysEnabled && (scope.asked.IsZero() || d.m.now.Sub(scope.asked) >= idle) {
				return fmt.Errorf("notice: event %s (%s) in scope %s gives notice, though no VM of the scope asked within %s (last %v)",
					e.ID, e.Type, e.Scope, idle, scope.asked)
			}
			continue
		}
		if nb, ok := d.obs.scheduled[e.ID]; ok && e.StartedAt.Before(nb) && e.ApprovedBy == "" {
			return fmt.Errorf("early start: event %s (%s) started at %v, before its NotBefore %v, unapproved", e.ID, e.Type, e.StartedAt, nb)
		}
		if !first || e.ApprovedBy != "" || e.Operation == forewarn.OpFail || !e.StartedAt.Equal(e.CreatedAt) {
			continue
		}
		if _, ok := d.obs.scheduled[e.ID]; ok {
			continue
		}
		if d.m.conf.AlwaysEnabled {
			return fmt.Errorf("notice: event %s (%s) in scope %s started at once, though every scope gets notice (--dev)", e.ID, e.Type, e.Scope)
		}
		if !scope.asked.IsZero() && d.m.now.Sub(scope.asked) < idle && scope.asked.After(d.m.restartedAt) {
			return fmt.Errorf("notice: event %s (%s) in scope %s started at once, though a VM of the scope asked at %v, within %s",
				e.ID, e.Type, e.Scope, scope.asked, idle)
		}
	}
	return nil
}

// checkEnds: every Started event ends within its impact plus the
// actuator's retry bound, counted from its start or the last restart or
// retry after it; one whose actuator failed for good waits for the admin.
func (d *driver) checkEnds(s *state) error {
	for _, e := range s.events {
		me := d.m.events[e.ID]
		if e.Status != forewarn.Started || me == nil {
			continue
		}
		held := len(e.Failed) > 0 && !slices.ContainsFunc(e.Resources, func(r string) bool {
			return !containsName(e.Actuated, r) && !containsName(e.Failed, r)
		})
		bound := me.clockFrom.Add(impactOf(e) + actBound + time.Second)
		if !held && d.m.now.After(bound) {
			return fmt.Errorf("stuck: event %s (%s in %s) started at %v and has not ended at %v (actuated %v, failed %v, ends at %v)",
				e.ID, e.Type, e.Scope, e.StartedAt, d.m.now, e.Actuated, e.Failed, e.EndsAt)
		}
	}
	return nil
}

// checkCampaignWalk: a campaign schedules one event per update domain of a
// scope, in order, one at a time; and a scope is in maintenance in one
// update domain at a time.
func (d *driver) checkCampaignWalk(s *state) error {
	inFlight := map[string]string{}
	domains := map[string]map[int]bool{}
	for _, e := range s.events {
		if e.Campaign == "" {
			continue
		}
		ud := -1
		for _, r := range e.Resources {
			vm := d.m.vms[key(r)]
			if vm == nil {
				continue
			}
			if ud >= 0 && vm.UD != ud {
				return fmt.Errorf("campaign %s: event %s hits update domains %d and %d of scope %s", e.Campaign, e.ID, ud, vm.UD, e.Scope)
			}
			ud = vm.UD
		}
		k := e.Campaign + "/" + key(e.Scope)
		if other, ok := inFlight[k]; ok {
			return fmt.Errorf("campaign %s: two events in flight in scope %s: %s and %s", e.Campaign, e.Scope, other, e.ID)
		}
		inFlight[k] = e.ID
		if d.obs.walkEvent[k] != e.ID {
			if last, ok := d.obs.walked[k]; ok && ud <= last && !d.scopeRecreated(e) {
				return fmt.Errorf("campaign %s: event %s walks update domain %d of scope %s after %d", e.Campaign, e.ID, ud, e.Scope, last)
			}
			d.obs.walked[k], d.obs.walkEvent[k] = ud, e.ID
		}
		if domains[key(e.Scope)] == nil {
			domains[key(e.Scope)] = map[int]bool{}
		}
		domains[key(e.Scope)][ud] = true
		if len(domains[key(e.Scope)]) > 1 && !d.opts.CampaignsMayOverlap {
			return fmt.Errorf("campaigns: scope %s has platform maintenance in update domains %v at once", e.Scope, domains[key(e.Scope)])
		}
	}
	return nil
}

// scopeRecreated reports whether an event's scope was created after the
// campaign's previous event there: the campaign goes on by name.
func (d *driver) scopeRecreated(e *forewarn.Event) bool {
	s := d.m.scopes[key(e.Scope)]
	c := d.m.campaign(e.Campaign)
	return s != nil && c != nil && s.CreatedAt.After(c.CreatedAt)
}
