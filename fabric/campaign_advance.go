package fabric

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/forewarn/forewarn"
)

// advance moves a campaign on: it notes the update domains whose event has
// ended and, if it is running, schedules the next update domain's event in
// each scope under way, starting new scopes up to its parallelism.
// It writes the campaign only if its progress changed.
func (f *Fabric) advance(t *txn, c *forewarn.Campaign) error {
	before := withoutEstimate(c)
	m := &moves{t: t, budget: int(f.advanceBatch.Load()), most: nextEventWrites}
	switch c.State {
	case forewarn.CampaignRunning:
		if err := f.step(t, c, m); err != nil {
			return err
		}
	case forewarn.CampaignPaused, forewarn.CampaignCancelled:
		// Events in flight go on while paused, and the Started ones of a
		// cancelled campaign; their ends still count.
		if _, err := settleAll(t, c, m); err != nil {
			return err
		}
		// A paused campaign with nothing left to walk (its scopes deleted
		// meanwhile) is done.
		if c.State == forewarn.CampaignPaused && allFinished(c) {
			c.State, c.EndedAt = forewarn.CampaignDone, t.now
		}
	}
	if reflect.DeepEqual(before, withoutEstimate(c)) {
		return nil
	}
	c.EstimatedEnd = f.estimate(t, c)
	return putCampaign(t, c)
}

// moving reports whether a campaign may still change by itself: it has not
// ended, or it was cancelled with events in flight that count when they end.
func moving(c *forewarn.Campaign) bool {
	return !c.Ended() || slices.ContainsFunc(c.Scopes, func(p forewarn.ScopeProgress) bool { return p.Event != "" })
}

// putCampaign stores a campaign and notes it for the metrics and the
// publisher.
func putCampaign(t *txn, c *forewarn.Campaign) error {
	t.changes.campaigns = append(t.changes.campaigns, c)
	return t.PutCampaign(c)
}

// withoutEstimate is what advance compares: a copy of the campaign without
// its estimated end.
func withoutEstimate(c *forewarn.Campaign) forewarn.Campaign {
	p := *c
	p.Scopes = append([]forewarn.ScopeProgress(nil), c.Scopes...)
	p.EstimatedEnd = time.Time{}
	return p
}

// maxAdvanceBatch is how many scopes one advance of a campaign moves at most
// (less if the store takes less: updateCampaigns), counting each update
// domain it notes as done and each event it schedules; the scheduler
// advances it again at once for the rest. A campaign over 10,000 scopes so
// writes in transactions of a bounded size, which bounds the memory they
// take (and the work lost to a failed commit).
const maxAdvanceBatch = 1000

// nextEventWrites is what step expects scheduling a scope's next event to
// write before it has seen one (the event, its index entry, its scope's
// incarnation); it keeps the most it sees.
const nextEventWrites = 3

// moves counts the scopes an advance moves in one transaction: up to
// budget, and no more than the store takes in one (forewarn.WriteLimited).
type moves struct {
	t      *txn
	budget int
	moved  int // scopes whose progress the advance writes at its end
	owed   int // scopes settled whose next event is not scheduled yet
	most   int // the most writes one scope's next event took
}

// full reports whether one more scope may not move: the budget is spent,
// or the writes to come might not fit in the transaction: the next events
// of the scopes settled, the progress of those moved, written at the end
// with the campaign's record, and the scope's own.
func (m *moves) full() bool {
	return m.moved >= m.budget || !m.t.room(m.owed*m.most+m.moved+1+m.most+1)
}

// step is advance's work on a running campaign, moving what m lets it:
// noting that a scope's update domain's event ended, scheduling its next
// update domain's event, or both (one write of its progress).
func (f *Fabric) step(t *txn, c *forewarn.Campaign, m *moves) error {
	settled, err := settleAll(t, c, m)
	if err != nil {
		return err
	}
	active := 0
	for i := range c.Scopes {
		if underWay(&c.Scopes[i]) {
			active++
		}
	}
	next := nextScopes(c, active, m.budget-m.moved, settled)
	if err := t.prefetch(next); err != nil {
		return err
	}
	if err := t.reserveEventIDs(len(next)); err != nil {
		return err
	}
	for i := range c.Scopes {
		p := &c.Scopes[i]
		if !schedulable(c, p, active) {
			continue
		}
		if settled[i] {
			m.owed-- // its progress is written anyway; its next event may wait
		}
		if m.full() {
			t.changes.wakeup = true // the rest in the next transaction
			continue
		}
		if !underWay(p) {
			active++
		}
		was := *p
		n, err := t.counted(func() error { return f.nextDomain(t, c, p) })
		if err != nil {
			return err
		}
		m.most = max(m.most, n)
		if !settled[i] && !reflect.DeepEqual(was, *p) {
			m.moved++ // a scope still waiting, as before, moved nothing
		}
		if p.Finished() {
			active--
		}
	}
	if allFinished(c) {
		c.State = forewarn.CampaignDone
		c.EndedAt = t.now
	}
	return nil
}

// schedulable reports whether step may schedule a scope's next update
// domain: it is not finished, has no event in flight, and is under way or
// finds a free lane among the active scopes.
func schedulable(c *forewarn.Campaign, p *forewarn.ScopeProgress, active int) bool {
	return !p.Finished() && p.Event == "" && (underWay(p) || active < c.Spec.ParallelScopes)
}

// nextScopes returns the scopes step may schedule in next: those settled
// now, and up to budget more, for it to read them ahead.
func nextScopes(c *forewarn.Campaign, active, budget int, settled map[int]bool) []string {
	var out []string
	for i := range c.Scopes {
		p := &c.Scopes[i]
		if !schedulable(c, p, active) || (budget <= 0 && !settled[i]) {
			continue
		}
		if !underWay(p) {
			active++
		}
		if !settled[i] {
			budget--
		}
		out = append(out, p.Scope)
	}
	return out
}

// allFinished reports whether a campaign has walked every scope to its end.
func allFinished(c *forewarn.Campaign) bool {
	return !slices.ContainsFunc(c.Scopes, func(p forewarn.ScopeProgress) bool { return !p.Finished() })
}

// underWay reports whether a campaign has begun a scope and not finished it.
func underWay(p *forewarn.ScopeProgress) bool {
	return !p.Finished() && (p.Done > 0 || p.Event != "" || p.Waiting != "")
}

// settleAll notes, in the scopes of a campaign that m lets move, that the
// event of their update domain has ended, and returns the scopes it noted,
// by index. A scope left for the next advance still has its event: it
// stays under way.
func settleAll(t *txn, c *forewarn.Campaign, m *moves) (map[int]bool, error) {
	settled := map[int]bool{}
	for i := range c.Scopes {
		if c.Scopes[i].Event == "" {
			continue
		}
		if m.full() {
			t.changes.wakeup = true // the rest in the next transaction
			break
		}
		ended, err := settle(t, &c.Scopes[i])
		if err != nil {
			return settled, err
		}
		if ended {
			settled[i] = true
			m.moved++
			m.owed++
		}
	}
	return settled, nil
}

// settle notes that the event of a scope's update domain has ended, and
// reports whether it had.
func settle(t *txn, p *forewarn.ScopeProgress) (bool, error) {
	if p.Event == "" {
		return false, nil
	}
	live, err := t.isLive(p.Event)
	if err != nil || live {
		return false, err
	}
	p.Event = ""
	p.Done++
	return true, nil
}

// nextDomain schedules the event of the scope's next update domain that has
// VMs, or waits while one of them has another event in flight.
func (f *Fabric) nextDomain(t *txn, c *forewarn.Campaign, p *forewarn.ScopeProgress) error {
	scope, err := t.Scope(p.Scope)
	if errors.Is(err, forewarn.ErrNotFound) {
		skipRest(p, "the scope was deleted")
		return nil
	} else if err != nil {
		return err
	}
	if other, err := otherCampaignIn(t, c, scope.Name); err != nil || other != nil {
		if other != nil {
			p.Waiting = fmt.Sprintf("campaign %s has event %s (%s) in flight in the scope", other.Campaign, other.ID, other.Type)
		}
		return err
	}
	for ; !p.Finished(); p.Done++ {
		vms, err := domainVMs(t, scope.Name, p.Done)
		if err != nil {
			return err
		}
		if len(vms) == 0 {
			p.Skipped = append(p.Skipped, forewarn.SkippedDomain{UpdateDomain: p.Done, Reason: "no VMs"})
			continue
		}
		for _, vm := range vms {
			if in, err := t.inFlightOn(scope.Name, vm.Name); err != nil || in != nil {
				if in != nil {
					p.Waiting = fmt.Sprintf("vm %s has event %s (%s) in flight", vm.Name, in.ID, in.Type)
				}
				return err
			}
		}
		p.Waiting = ""
		p.NoNotice = !f.enabled(scope, t.now)
		e := &forewarn.Event{
			ID:                t.newEventID(),
			Type:              c.Spec.Type,
			Status:            forewarn.Scheduled,
			Scope:             scope.Name,
			Resources:         names(vms),
			Source:            forewarn.Platform,
			Description:       c.Description,
			DurationInSeconds: c.DurationInSeconds,
			Campaign:          c.ID,
			CreatedAt:         t.now,
		}
		p.Event = e.ID
		return f.schedule(t, e, scope, noticeOf(e.Type, scope, time.Duration(c.Spec.Notice)))
	}
	p.Waiting = ""
	return nil
}

// otherCampaignIn returns an event in flight in the scope of another
// campaign than c, or nil: platform maintenance hits one update domain of a
// scope at a time (SPEC.md 8), also when two campaigns walk it.
func otherCampaignIn(t *txn, c *forewarn.Campaign, scope string) (*forewarn.Event, error) {
	events, err := t.Events(scope)
	if err != nil {
		return nil, err
	}
	for _, e := range events {
		if e.Campaign != "" && e.Campaign != c.ID {
			return e, nil
		}
	}
	return nil, nil
}

// skipRest notes every update domain of a scope not yet walked as skipped.
func skipRest(p *forewarn.ScopeProgress, reason string) {
	for ; !p.Finished(); p.Done++ {
		p.Skipped = append(p.Skipped, forewarn.SkippedDomain{UpdateDomain: p.Done, Reason: reason})
	}
	p.Event, p.Waiting = "", ""
}

// skipDomain notes on its campaign that the update domain of a campaign's
// event that was cancelled (by the admin, or as its VMs were deleted) was
// not maintained, and why, so that the campaign moves on and its progress
// says so (it is not scheduled again: the operator chose to cancel it).
// Events a cancelled campaign cancels are not noted: it walks no further.
func skipDomain(t *txn, e *forewarn.Event, reason string) error {
	if e.Campaign == "" {
		return nil
	}
	c, err := t.Campaign(e.Campaign)
	if errors.Is(err, forewarn.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	i := slices.IndexFunc(c.Scopes, func(p forewarn.ScopeProgress) bool { return p.Event == e.ID })
	if c.Ended() || i < 0 {
		return nil
	}
	p := &c.Scopes[i]
	p.Skipped = append(p.Skipped, forewarn.SkippedDomain{UpdateDomain: p.Done, Reason: reason})
	p.Event = ""
	p.Done++
	return putCampaign(t, c)
}

// domainVMs returns the VMs of an update domain of a scope that are not
// being deleted.
func domainVMs(t *txn, scope string, ud int) ([]*forewarn.VM, error) {
	all, err := t.VMs(scope)
	if err != nil {
		return nil, err
	}
	var out []*forewarn.VM
	for _, vm := range all {
		if vm.UpdateDomain == ud && vm.State != forewarn.Deleting {
			out = append(out, vm)
		}
	}
	return out, nil
}

func names(vms []*forewarn.VM) []string {
	out := make([]string, len(vms))
	for i, vm := range vms {
		out[i] = vm.Name
	}
	return out
}

// advanceCampaigns moves every campaign that may still move on (moving), in one transaction
// that writes only what changed; it reports whether events changed, and
// whether a campaign stopped at a batch, with more to do at once.
func (f *Fabric) advanceCampaigns(ctx context.Context) (advanced, more bool, err error) {
	mayMove := false
	err = f.view(ctx, func(tx forewarn.Tx) error { // headers only: most often none moves
		headers, err := tx.CampaignHeaders()
		mayMove = slices.ContainsFunc(headers, func(h *forewarn.Campaign) bool {
			_, settled := f.settled.Load(h.ID)
			return !settled
		})
		return err
	})
	if err != nil || !mayMove {
		return false, false, err
	}
	err = f.updateCampaigns(ctx, func(t *txn) error {
		campaigns, err := f.unsettled(t)
		if err != nil {
			return err
		}
		for _, c := range campaigns {
			if err := f.advance(t, c); err != nil {
				return err
			}
		}
		advanced, more = len(t.bumped) > 0, t.changes.wakeup
		return nil
	})
	if err != nil {
		return false, false, err
	}
	return advanced, more, nil
}

// unsettled returns the campaigns that may still move (moving), whole. A
// campaign that may not never will again: the scheduler remembers it
// (settled) and reads no more of it than its header, so that an advance
// costs the campaigns under way, not every campaign ever run.
func (f *Fabric) unsettled(tx forewarn.Tx) ([]*forewarn.Campaign, error) {
	headers, err := tx.CampaignHeaders()
	if err != nil {
		return nil, err
	}
	var out []*forewarn.Campaign
	for _, h := range headers {
		if _, ok := f.settled.Load(h.ID); ok {
			continue
		}
		c, err := tx.Campaign(h.ID)
		if err != nil {
			return nil, err
		}
		if !moving(c) {
			f.settled.Store(c.ID, true)
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

// updateCampaigns runs an update that advances campaigns, halving the
// number of scopes an advance schedules while the store finds the
// transaction too large (etcd's --max-txn-ops), down to one. The size that
// fits is kept for the campaigns that follow.
func (f *Fabric) updateCampaigns(ctx context.Context, fn func(*txn) error) error {
	for {
		batch := f.advanceBatch.Load()
		err := f.update(ctx, fn)
		if !errors.Is(err, forewarn.ErrTooLarge) || batch <= 1 {
			return err
		}
		f.shrink(&f.advanceBatch, batch, batch, "scopes of a campaign", err)
	}
}
