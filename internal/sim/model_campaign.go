package sim

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/forewarn/forewarn"
)

func (m *model) campaign(id string) *forewarn.Campaign {
	for _, c := range m.campaigns {
		if c.ID == key(id) {
			return c
		}
	}
	return nil
}

// sortedScopes returns every scope in name order.
func (m *model) sortedScopes() []*mScope {
	out := make([]*mScope, 0, len(m.scopes))
	for _, s := range m.scopes {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *mScope) int { return cmp.Compare(key(a.Name), key(b.Name)) })
	return out
}

func (m *model) startCampaign(spec forewarn.CampaignSpec, id string, idFor func(c, scope string) string) error {
	kind, ok := campaignTypes[spec.Type]
	switch {
	case !ok, !spec.All && len(spec.Scopes) == 0, spec.All && len(spec.Scopes) > 0, len(spec.Description) > 1024,
		spec.Notice < 0 || spec.Duration < 0, spec.Duration > 0 && spec.Duration < forewarn.Duration(time.Second),
		spec.ParallelScopes < 0:
		return fail(forewarn.ErrInvalid)
	}
	var scopes []*mScope
	if spec.All {
		scopes = m.sortedScopes()
	}
	for _, name := range spec.Scopes {
		s := m.scopes[key(name)]
		if s == nil {
			return fail(forewarn.ErrNotFound)
		}
		if slices.Contains(scopes, s) {
			return fail(forewarn.ErrInvalid)
		}
		scopes = append(scopes, s)
	}
	if spec.ParallelScopes == 0 {
		spec.ParallelScopes = 1
	}
	spec.Notice = max(spec.Notice, forewarn.Duration(minNotice[spec.Type]))
	c := &forewarn.Campaign{ID: id, Spec: spec, Description: kind.desc, DurationInSeconds: kind.duration,
		State: forewarn.CampaignRunning, CreatedAt: m.now, Scopes: []forewarn.ScopeProgress{}}
	if spec.Description != "" {
		c.Description = spec.Description
	}
	if spec.Duration > 0 {
		c.DurationInSeconds = int(time.Duration(spec.Duration) / time.Second)
	}
	for _, s := range scopes {
		c.Scopes = append(c.Scopes, forewarn.ScopeProgress{Scope: s.Name, UpdateDomains: s.UDs, NoNotice: !m.enabled(s)})
	}
	m.campaigns = append(m.campaigns, c)
	m.campaignsDue = true
	slices.SortFunc(m.campaigns, func(a, b *forewarn.Campaign) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	m.advance(c, idFor)
	return nil
}

func (m *model) steer(id string, action forewarn.CampaignAction, idFor func(c, scope string) string) error {
	switch action {
	case forewarn.PauseCampaign, forewarn.ResumeCampaign, forewarn.CancelCampaign:
	default:
		return fail(forewarn.ErrInvalid)
	}
	c := m.campaign(id)
	switch {
	case c == nil:
		return fail(forewarn.ErrNotFound)
	case action == forewarn.CancelCampaign && c.State == forewarn.CampaignCancelled:
		return nil // already so
	case c.Ended():
		return fail(forewarn.ErrConflict)
	case action == forewarn.PauseCampaign && c.State == forewarn.CampaignPaused,
		action == forewarn.ResumeCampaign && c.State == forewarn.CampaignRunning:
		return nil // already so
	}
	m.campaignsDue = true
	switch action {
	case forewarn.PauseCampaign:
		c.State = forewarn.CampaignPaused
	case forewarn.ResumeCampaign:
		c.State = forewarn.CampaignRunning
		m.advance(c, idFor)
	case forewarn.CancelCampaign:
		// Its Scheduled events are cancelled; those that started go on.
		for i := range c.Scopes {
			p := &c.Scopes[i]
			p.Waiting = ""
			if e := m.events[p.Event]; e != nil && e.Status == forewarn.Scheduled {
				m.end(e, forewarn.Cancelled)
				p.Event = ""
			}
		}
		c.State, c.EndedAt = forewarn.CampaignCancelled, m.now
	}
	return nil
}

// advanceAll moves every campaign that has not ended on, oldest first.
// Under the mask LazyCampaigns it does so only when the fabric would: an
// event ended, a campaign changed or a scope went since the last advance.
func (m *model) advanceAll(idFor func(c, scope string) string) {
	if m.opts.LazyCampaigns && !m.campaignsDue {
		return
	}
	m.campaignsDue = false
	for _, c := range m.campaigns {
		// A cancelled campaign still counts its Started events as they end.
		if c.Ended() && !slices.ContainsFunc(c.Scopes, func(p forewarn.ScopeProgress) bool { return p.Event != "" }) {
			continue
		}
		before := progress(c)
		m.advance(c, idFor)
		if progress(c) != before {
			m.campaignsDue = true
		}
	}
}

// progress is what an advance may change of a campaign.
func progress(c *forewarn.Campaign) string {
	var b strings.Builder
	b.WriteString(string(c.State))
	for _, p := range c.Scopes {
		b.WriteString("|" + p.Scope + ":" + strconv.Itoa(p.Done) + ":" + p.Event + ":" + p.Waiting + ":" +
			strconv.FormatBool(p.NoNotice) + ":" + strconv.Itoa(len(p.Skipped)))
	}
	return b.String()
}

// advance notes the update domains whose event has ended and, if the
// campaign runs, schedules each scope's next update domain, one scope at a
// time up to its parallelism, one update domain at a time in each.
func (m *model) advance(c *forewarn.Campaign, idFor func(c, scope string) string) {
	for i := range c.Scopes {
		m.settle(&c.Scopes[i])
	}
	allDone := !slices.ContainsFunc(c.Scopes, func(p forewarn.ScopeProgress) bool { return !p.Finished() })
	if c.State == forewarn.CampaignPaused && allDone {
		c.State, c.EndedAt = forewarn.CampaignDone, m.now // nothing left to walk
	}
	if c.State != forewarn.CampaignRunning {
		return
	}
	active := 0
	for i := range c.Scopes {
		if underWay(&c.Scopes[i]) {
			active++
		}
	}
	for i := range c.Scopes {
		p := &c.Scopes[i]
		if p.Finished() || p.Event != "" || (!underWay(p) && active >= c.Spec.ParallelScopes) {
			continue
		}
		if !underWay(p) {
			active++
		}
		m.nextDomain(c, p, idFor)
		if p.Finished() {
			active--
		}
	}
	if !slices.ContainsFunc(c.Scopes, func(p forewarn.ScopeProgress) bool { return !p.Finished() }) {
		c.State, c.EndedAt = forewarn.CampaignDone, m.now
	}
}

func underWay(p *forewarn.ScopeProgress) bool {
	return !p.Finished() && (p.Done > 0 || p.Event != "" || p.Waiting != "")
}

func (m *model) settle(p *forewarn.ScopeProgress) {
	if p.Event != "" && m.events[p.Event] == nil {
		p.Event = ""
		p.Done++
	}
}

// nextDomain schedules the event of the scope's next update domain that has
// VMs, or waits while one of them has another event in flight.
func (m *model) nextDomain(c *forewarn.Campaign, p *forewarn.ScopeProgress, idFor func(c, scope string) string) {
	scope := m.scopes[key(p.Scope)]
	if scope == nil {
		skipRest(p, "the scope was deleted")
		return
	}
	// One update domain of a scope in maintenance at a time (SPEC.md 8):
	// two campaigns over a scope take turns.
	for _, e := range m.eventsOf(scope.Name) {
		if e.Campaign != "" && e.Campaign != c.ID {
			p.Waiting = fmt.Sprintf("campaign %s has event %s (%s) in flight in the scope", e.Campaign, e.ID, e.Type)
			return
		}
	}
	for ; !p.Finished(); p.Done++ {
		var vms []*mVM
		for _, vm := range m.vmsOf(scope.Name) {
			if vm.UD == p.Done && vm.State != forewarn.Deleting {
				vms = append(vms, vm)
			}
		}
		if len(vms) == 0 {
			p.Skipped = append(p.Skipped, forewarn.SkippedDomain{UpdateDomain: p.Done, Reason: "no VMs"})
			continue
		}
		for _, vm := range vms {
			if in := m.inFlightOn(vm); in != nil {
				p.Waiting = fmt.Sprintf("vm %s has event %s (%s) in flight", vm.Name, in.ID, in.Type)
				return
			}
		}
		p.Waiting = ""
		p.NoNotice = !m.enabled(scope)
		e := &mEvent{Event: forewarn.Event{ID: idFor(c.ID, scope.Name), Type: c.Spec.Type, Status: forewarn.Scheduled,
			Scope: scope.Name, Source: forewarn.Platform, Description: c.Description,
			DurationInSeconds: c.DurationInSeconds, Campaign: c.ID, CreatedAt: m.now}}
		for _, vm := range vms {
			e.Resources = append(e.Resources, vm.Name)
		}
		if e.ID == "" {
			e.ID = fmt.Sprintf("missing:%s/%s/%d", c.ID, key(scope.Name), p.Done)
		}
		p.Event = e.ID
		m.schedule(e, scope, max(time.Duration(c.Spec.Notice), minNotice[c.Spec.Type]))
		return
	}
	p.Waiting = ""
}

// skipDomain notes that a campaign's event was cancelled because its VMs
// were all deleted before it started: its update domain is skipped.
func (m *model) skipDomain(e *mEvent, reason string) {
	c := m.campaign(e.Campaign)
	if e.Campaign == "" || c == nil || c.Ended() {
		return
	}
	for i := range c.Scopes {
		if p := &c.Scopes[i]; p.Event == e.ID {
			p.Skipped = append(p.Skipped, forewarn.SkippedDomain{UpdateDomain: p.Done, Reason: reason})
			p.Event = ""
			p.Done++
			m.campaignsDue = true
			return
		}
	}
}

// skipRest notes every update domain of a scope not yet walked as skipped.
func skipRest(p *forewarn.ScopeProgress, reason string) {
	for ; !p.Finished(); p.Done++ {
		p.Skipped = append(p.Skipped, forewarn.SkippedDomain{UpdateDomain: p.Done, Reason: reason})
	}
	p.Event, p.Waiting = "", ""
}

// walkers counts the campaigns that have not ended and have not finished
// with the scope.
func (m *model) walkers(s *mScope) int {
	n := 0
	for _, c := range m.campaigns {
		if c.Ended() {
			continue
		}
		for _, p := range c.Scopes {
			if forewarn.SameName(p.Scope, s.Name) && !p.Finished() {
				n++
				break
			}
		}
	}
	return n
}

// wipeTarget chooses the scope an OpWipe deletes: one that the most
// campaigns walk (two, if any scope has two), else any; nil if there is
// none.
func (m *model) wipeTarget(pick int) *mScope {
	scopes := m.sortedScopes()
	if len(scopes) == 0 {
		return nil
	}
	most := 0
	for _, s := range scopes {
		most = max(most, m.walkers(s))
	}
	var best []*mScope
	for _, s := range scopes {
		if m.walkers(s) == most {
			best = append(best, s)
		}
	}
	return best[pick%len(best)]
}

// waitedFor returns the events in flight of one campaign in a scope where
// another campaign waits for its turn.
func (m *model) waitedFor() []*mEvent {
	var out []*mEvent
	for _, e := range m.eventsOf("") {
		if e.Campaign == "" {
			continue
		}
		for _, c := range m.campaigns {
			if c.ID == e.Campaign || c.Ended() {
				continue
			}
			if slices.ContainsFunc(c.Scopes, func(p forewarn.ScopeProgress) bool {
				return forewarn.SameName(p.Scope, e.Scope) && p.Event == "" && p.Waiting != "" && !p.Finished()
			}) {
				out = append(out, e)
				break
			}
		}
	}
	return out
}
