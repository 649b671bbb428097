package drill

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/forewarn/forewarn"
)

// withdrawTimeout bounds the cancelling of what a stopped step started.
const withdrawTimeout = 10 * time.Second

// stepRun follows one step that creates events: it acts, then watches the
// events, the campaign and the polls until every event has ended and every
// health check is done, or the step times out.
type stepRun struct {
	// ctx is the drill's, for the health checks.
	ctx  context.Context
	r    *Runner
	step *Step
	sr   *StepReport
	out  *printer

	campaign *forewarn.Campaign
	// events are the step's events by id, in order of appearance.
	events map[string]*tracked
	order  []string
	// scopes are the scopes hit, by key; vms what their VMs' polls showed.
	scopes map[forewarn.Key]string
	vms    map[forewarn.Key]*vmSeen
	// pollsErr is why the polls could not be read, if they could not.
	pollsErr error
	// origin is the step's start on the server's clock, which the times
	// of events and polls are on: when what the step did was created.
	origin time.Time
	// timedOut says what was still in flight when the step timed out.
	timedOut string

	// notes are the lines of one look, printed in the order of their
	// times once it is done.
	notes []note

	health sync.WaitGroup
	mu     sync.Mutex // guards the health results of tracked
}

// tracked is one event of the step, as last seen.
type tracked struct {
	ev *forewarn.Event
	// notBefore is the NotBefore it was first seen with; zero if it was
	// first seen started.
	notBefore time.Time
	health    map[forewarn.Key]*HealthResult
}

// note is a line about something that happened at a time.
type note struct {
	at   time.Time
	line string
}

// vmSeen is what the polls showed of one VM of a hit scope during the step.
type vmSeen struct {
	name, scope string
	// polled says the VM polled while the step ran.
	polled bool
	seen   map[string]time.Time // first sighting by event id
}

func newStepRun(ctx context.Context, r *Runner, step *Step, sr *StepReport, out *printer) *stepRun {
	return &stepRun{ctx: ctx, r: r, step: step, sr: sr, out: out,
		events: map[string]*tracked{}, scopes: map[forewarn.Key]string{}, vms: map[forewarn.Key]*vmSeen{}}
}

// act does what the step does.
func (s *stepRun) act(ctx context.Context) error {
	fleet, step := s.r.Fleet, s.step
	var ev *forewarn.Event
	var err error
	switch step.Kind {
	case Campaign:
		s.campaign, err = fleet.StartCampaign(ctx, step.Campaign)
		if err != nil {
			return err
		}
		s.sr.Campaign = s.campaign.ID
		s.origin = s.campaign.CreatedAt
		for _, p := range s.campaign.Scopes {
			s.scopes[forewarn.KeyOf(p.Scope)] = p.Scope
		}
		s.notef(s.campaign.CreatedAt, "campaign %s started over %s", s.campaign.ID, campaignScopes(step.Campaign))
		return nil
	case Fail:
		ev, err = fleet.Fail(ctx, step.VM)
	case Degrade:
		ev, err = fleet.Degrade(ctx, step.VM, step.Notice)
	default:
		ev, err = fleet.Operate(ctx, step.VM, forewarn.Operation(step.Kind))
	}
	if err != nil {
		return err
	}
	s.scopes[forewarn.KeyOf(ev.Scope)] = ev.Scope
	s.origin = ev.CreatedAt
	s.see(ev)
	return nil
}

// follow watches until the step is over.
func (s *stepRun) follow(ctx context.Context) error {
	deadline := s.sr.Started.Add(s.step.Timeout)
	for {
		if err := s.look(ctx); err != nil {
			return err
		}
		if s.over() {
			break
		}
		if time.Now().After(deadline) {
			s.timedOut = fmt.Sprintf("still in flight after %s: %s", forewarn.FormatDuration(s.step.Timeout), s.inFlight())
			s.health.Wait()
			return errStop
		}
		s.out.status("%s", s.statusLine())
		if err := sleep(ctx, s.r.interval()); err != nil {
			return err
		}
	}
	if s.campaign != nil {
		if err := s.reconcile(ctx); err != nil {
			return err
		}
		s.lookPolls(ctx)
		s.flush()
	}
	if s.step.Expect.Health != nil {
		s.out.status("  waiting for health checks")
	}
	s.health.Wait()
	return nil
}

// look reads the campaign, the events and the polls once.
func (s *stepRun) look(ctx context.Context) error {
	if s.campaign != nil && !s.campaign.Ended() {
		c, err := s.r.Fleet.Campaign(ctx, s.campaign.ID)
		if err != nil {
			return fmt.Errorf("campaign %s: %w", s.campaign.ID, err)
		}
		if c.Ended() {
			s.notef(c.EndedAt, "campaign %s %s", shortID(c.ID), c.State)
		}
		s.campaign = c
		for _, p := range c.Scopes {
			if p.Event != "" && s.events[p.Event] == nil {
				if err := s.fetch(ctx, p.Event); err != nil {
					return err
				}
			}
		}
	}
	for _, id := range s.order {
		if s.events[id].ev.InFlight() {
			if err := s.fetch(ctx, id); err != nil {
				return err
			}
		}
	}
	s.lookPolls(ctx)
	s.flush()
	return nil
}

// fetch reads an event, from the history once it has ended.
func (s *stepRun) fetch(ctx context.Context, id string) error {
	ev, err := s.r.Fleet.Event(ctx, id)
	if errors.Is(err, forewarn.ErrNotFound) {
		ev, err = s.ended(ctx, id)
	}
	if err != nil {
		return fmt.Errorf("event %s: %w", id, err)
	}
	s.see(ev)
	return nil
}

// ended finds an event in the history.
func (s *stepRun) ended(ctx context.Context, id string) (*forewarn.Event, error) {
	var ev *forewarn.Event
	err := s.history(ctx, func(e *forewarn.Event) bool {
		if e.ID == id {
			ev = e
			return false
		}
		return true
	})
	if err == nil && ev == nil {
		err = forewarn.Errorf(forewarn.ErrNotFound, "event %s is neither in flight nor in the history", id)
	}
	return ev, err
}

// history walks the history, newest first, while fn returns true.
func (s *stepRun) history(ctx context.Context, fn func(*forewarn.Event) bool) error {
	q := forewarn.HistoryQuery{Limit: 200}
	for {
		page, next, err := s.r.Fleet.HistoryPage(ctx, q)
		if err != nil {
			return err
		}
		for _, e := range page {
			if e.EndedAt.Before(s.origin) || !fn(e) {
				return nil
			}
		}
		if next == "" {
			return nil
		}
		q.After = next
	}
}

// reconcile adds the campaign's events that came and went between two
// looks, from the history.
func (s *stepRun) reconcile(ctx context.Context) error {
	var missed []*forewarn.Event
	err := s.history(ctx, func(e *forewarn.Event) bool {
		if e.Campaign == s.campaign.ID && s.events[e.ID] == nil {
			missed = append(missed, e)
		}
		return true
	})
	slices.Reverse(missed)
	for _, e := range missed {
		s.see(e)
	}
	s.flush()
	return err
}

// see records what an event is now and prints what changed.
func (s *stepRun) see(ev *forewarn.Event) {
	t := s.events[ev.ID]
	if t == nil {
		t = &tracked{ev: ev, notBefore: ev.NotBefore, health: map[forewarn.Key]*HealthResult{}}
		s.events[ev.ID] = t
		s.order = append(s.order, ev.ID)
		s.notef(ev.CreatedAt, "event %s: %s of %s%s", shortID(ev.ID), ev.Type, listNames(ev.Resources), noticeWords(ev))
	}
	old := t.ev
	t.ev = ev
	if ev.ApprovedBy != "" && (old.ApprovedBy == "" || old == ev) {
		s.notef(ev.ApprovedAt, "event %s approved by %s after %s", shortID(ev.ID), ev.ApprovedBy,
			roundDuration(ev.ApprovedAt.Sub(ev.CreatedAt)))
	}
	if !ev.StartedAt.IsZero() && (old.StartedAt.IsZero() || old == ev) {
		how := ""
		if eventRow(t).StartedUnapproved() {
			how = " UNAPPROVED"
		}
		s.notef(ev.StartedAt, "event %s started%s", shortID(ev.ID), how)
	}
	if !ev.InFlight() && (old.InFlight() || old == ev) {
		s.notef(ev.EndedAt, "event %s %s", shortID(ev.ID), strings.ToLower(string(ev.Outcome)))
		if ev.Outcome == forewarn.Completed && s.step.Expect.Health != nil {
			s.checkHealth(ev, t)
		}
	}
}

// noticeWords says how much notice an event gives, if the drill can tell:
// an event approved between two of its looks has lost its NotBefore, and
// the lines that follow say who approved it.
func noticeWords(ev *forewarn.Event) string {
	switch {
	case ev.StartedAt.IsZero():
		return fmt.Sprintf(", NotBefore in %s", roundDuration(ev.NotBefore.Sub(ev.CreatedAt)))
	case ev.StartedAt.Equal(ev.CreatedAt):
		return ", started at once, with no notice"
	}
	return ""
}

// notef notes a line about something that happened at t.
func (s *stepRun) notef(t time.Time, format string, args ...any) {
	s.notes = append(s.notes, note{at: t, line: fmt.Sprintf(format, args...)})
}

// flush prints the notes in the order of their times, each with its offset
// from the step's start.
func (s *stepRun) flush() {
	slices.SortStableFunc(s.notes, func(a, b note) int { return a.at.Compare(b.at) })
	for _, n := range s.notes {
		s.out.linef("  %s %s", s.at(n.at), n.line)
	}
	s.notes = s.notes[:0]
}

// at shows a time of the server's as the offset from the step's start.
func (s *stepRun) at(t time.Time) string {
	return fmt.Sprintf("+%s", roundDuration(max(t.Sub(s.origin), 0)))
}

// over reports whether every event has ended and the campaign, if any, has.
func (s *stepRun) over() bool {
	if s.campaign != nil && !s.campaign.Ended() {
		return false
	}
	for _, t := range s.events {
		if t.ev.InFlight() {
			return false
		}
	}
	return true
}

// inFlight names the events still in flight.
func (s *stepRun) inFlight() string {
	var ids []string
	for _, id := range s.order {
		if s.events[id].ev.InFlight() {
			ids = append(ids, fmt.Sprintf("%s (%s)", id, s.events[id].ev.Status))
		}
	}
	if s.campaign != nil && !s.campaign.Ended() {
		ids = append(ids, "campaign "+s.campaign.ID)
	}
	return listNames(ids)
}

// statusLine is the live line: each event in flight, its countdown and
// who has approved.
func (s *stepRun) statusLine() string {
	line := ""
	if s.campaign != nil {
		done, total := 0, 0
		for _, p := range s.campaign.Scopes {
			done, total = done+p.Done, total+p.UpdateDomains
		}
		line = fmt.Sprintf("  campaign: %d/%d update domains", done, total)
	}
	for _, id := range s.order {
		ev := s.events[id].ev
		if !ev.InFlight() {
			continue
		}
		switch {
		case ev.Status == forewarn.Scheduled:
			line += fmt.Sprintf("  %s: NotBefore in %s, not approved", id, roundDuration(max(time.Until(ev.NotBefore), 0)))
		case ev.ApprovedBy != "":
			line += fmt.Sprintf("  %s: started, approved by %s", id, ev.ApprovedBy)
		default:
			line += fmt.Sprintf("  %s: started", id)
		}
	}
	return line
}

// lookPolls reads the polls of the hit scopes' VMs, keeping each VM's
// first sighting of each event even once the VM is gone (an evicted VM
// leaves the endpoint's record).
func (s *stepRun) lookPolls(ctx context.Context) {
	for _, scope := range s.scopes {
		polls, err := s.r.Polls.Polls(ctx, scope)
		if errors.Is(err, forewarn.ErrNotFound) {
			continue // the scope is gone: its last VM was evicted
		}
		if err != nil {
			s.pollsErr = err
			continue
		}
		for _, p := range polls {
			s.merge(p)
		}
	}
}

// merge adds one VM's polls to what the step has seen. It keeps every
// sighting, of events it does not know yet too: a campaign's event may
// come and go between two looks, and be found in the history only at the
// end. A VM polled during the step if its last poll is not older than
// the step's origin: both times are the server's, so the drill's own clock
// may be off.
func (s *stepRun) merge(p *forewarn.VMPolls) {
	key := forewarn.KeyOf(p.VM)
	v := s.vms[key]
	if v == nil {
		v = &vmSeen{name: p.VM, scope: p.Scope, seen: map[string]time.Time{}}
		s.vms[key] = v
	}
	if !v.polled && !p.LastPoll.Before(s.origin) {
		v.polled = true
	}
	for _, sg := range p.Seen {
		first, ok := v.seen[sg.Event]
		if ok && !sg.At.Before(first) {
			continue
		}
		v.seen[sg.Event] = sg.At
		if t := s.events[sg.Event]; t != nil && !ok {
			s.notef(sg.At, "%s saw event %s after %s", p.VM, shortID(sg.Event),
				roundDuration(max(sg.At.Sub(t.ev.CreatedAt), 0)))
		}
	}
}

// withdraw cancels what a step that did not end started and has not
// started yet: its campaign, and its Scheduled events, so that a drill
// stopped early leaves no maintenance behind it on a shared server. It
// runs after ctx may have ended, for a few seconds.
func (s *stepRun) withdraw(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), withdrawTimeout)
	defer cancel()
	fleet := s.r.Fleet
	if s.campaign != nil && !s.campaign.Ended() {
		if _, err := fleet.SteerCampaign(ctx, s.campaign.ID, forewarn.CancelCampaign); err != nil {
			s.out.linef("  could not cancel campaign %s: %s", s.campaign.ID, err)
		} else {
			s.sr.Withdrawn = append(s.sr.Withdrawn, "campaign "+s.campaign.ID)
		}
	}
	var goingOn []string
	for _, id := range s.order {
		ev := s.events[id].ev
		switch {
		case !ev.InFlight():
		case ev.Status == forewarn.Scheduled:
			cancelled, err := fleet.Cancel(ctx, id)
			if err != nil {
				s.out.linef("  could not cancel event %s: %s", id, err)
				continue
			}
			s.events[id].ev = cancelled
			s.sr.Withdrawn = append(s.sr.Withdrawn, "event "+id)
		default:
			goingOn = append(goingOn, id)
		}
	}
	if len(s.sr.Withdrawn) > 0 {
		s.out.linef("  cancelled what the step started: %s", strings.Join(s.sr.Withdrawn, ", "))
	}
	if len(goingOn) > 0 {
		s.out.linef("  started, going on: event %s", strings.Join(goingOn, ", "))
	}
}
