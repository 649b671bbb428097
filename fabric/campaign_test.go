package fabric

import (
	"fmt"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// fleet3x5 creates 3 availability sets of 5 update domains, each with two
// VMs per update domain.
func fleet3x5(h *harness) []string {
	scopes := []string{"web", "api", "db"}
	for _, s := range scopes {
		h.scope(forewarn.ScopeSpec{Name: s})
		for i := range 10 {
			ud := i % 5
			h.vm(forewarn.VMSpec{Name: fmt.Sprintf("%s-%d", s, i), Scope: s, UpdateDomain: &ud})
		}
	}
	return scopes
}

// events returns the events in flight that q selects; an error fails the
// test, so that an empty answer is a real one.
func (h *harness) events(q forewarn.EventQuery) []*forewarn.Event {
	h.tb.Helper()
	events, _, err := h.f.Events(h.ctx, q)
	if err != nil {
		h.tb.Fatalf("events %+v: %v", q, err)
	}
	return events
}

// campaign returns a campaign as stored.
func (h *harness) campaign(id string) *forewarn.Campaign {
	h.tb.Helper()
	c, err := h.f.Campaign(h.ctx, id)
	if err != nil {
		h.tb.Fatalf("campaign %s: %v", id, err)
	}
	return c
}

// approve approves an event as the admin and returns it.
func (h *harness) approve(id string) *forewarn.Event {
	h.tb.Helper()
	e, err := h.f.Approve(h.ctx, id)
	if err != nil {
		h.tb.Fatalf("approve %s: %v", id, err)
	}
	return e
}

// rollout follows a campaign to its end, stepping the clock from deadline to
// deadline, and checks the invariants of a rollout at every step. onEvent
// is called once for every new event of the campaign.
type rollout struct {
	h        *harness
	id       string
	parallel int
	seen     map[string]bool         // event ids
	hits     map[string]int          // vm -> events that named it
	order    map[string][]int        // scope -> update domains, in order
	onEvent  func(e *forewarn.Event) // may be nil
	steps    int
}

func newRollout(h *harness, c *forewarn.Campaign) *rollout {
	return &rollout{h: h, id: c.ID, parallel: c.Spec.ParallelScopes,
		seen: map[string]bool{}, hits: map[string]int{}, order: map[string][]int{}}
}

// check looks at the events in flight once and reports whether there were
// new ones.
func (r *rollout) check() bool {
	r.h.tb.Helper()
	events, _, err := r.h.f.Events(r.h.ctx, forewarn.EventQuery{})
	if err != nil {
		r.h.tb.Fatal(err)
	}
	perScope := map[string]int{}
	fresh := false
	for _, e := range events {
		if e.Campaign != r.id {
			continue
		}
		perScope[e.Scope]++
		if perScope[e.Scope] > 1 {
			r.h.tb.Fatalf("two update domains of %s in flight at once: %+v", e.Scope, events)
		}
		if r.seen[e.ID] {
			continue
		}
		r.seen[e.ID] = true
		fresh = true
		ud := -1
		for _, name := range e.Resources {
			r.hits[name]++
			vm, err := r.h.f.VM(r.h.ctx, name)
			if err != nil {
				r.h.tb.Fatalf("vm %s of event %s: %v", name, e.ID, err)
			}
			if ud >= 0 && vm.UpdateDomain != ud {
				r.h.tb.Fatalf("event %s spans update domains", e.ID)
			}
			ud = vm.UpdateDomain
		}
		r.order[e.Scope] = append(r.order[e.Scope], ud)
		if e.Source != forewarn.Platform || e.Type != forewarn.Freeze {
			r.h.tb.Fatalf("campaign event %+v", e)
		}
		if r.onEvent != nil {
			r.onEvent(e)
		}
	}
	if len(perScope) > r.parallel {
		r.h.tb.Fatalf("%d scopes under way, parallelism %d", len(perScope), r.parallel)
	}
	return fresh
}

// run steps until the campaign is done and returns when it ended.
func (r *rollout) run(until func() bool) {
	r.h.tb.Helper()
	for ; r.steps < 10000; r.steps++ {
		r.check()
		if until != nil && until() {
			return
		}
		c, err := r.h.f.Campaign(r.h.ctx, r.id)
		if err != nil {
			r.h.tb.Fatal(err)
		}
		if c.State != forewarn.CampaignRunning {
			return
		}
		next, err := r.h.f.Tick(r.h.ctx)
		if err != nil {
			r.h.tb.Fatal(err)
		}
		if r.check() {
			continue // onEvent may have changed the deadlines
		}
		if next.IsZero() {
			if c := r.h.campaign(r.id); c.State == forewarn.CampaignRunning {
				r.h.tb.Fatalf("running campaign with nothing pending: %+v", c)
			}
			return
		}
		r.h.clock.Advance(next.Sub(r.h.clock.Now()))
	}
	r.h.tb.Fatal("campaign never ended")
}

// checkComplete checks every VM was hit exactly once, update domains in order.
func (r *rollout) checkComplete(scopes []string) {
	r.h.tb.Helper()
	for _, s := range scopes {
		for i := range 10 {
			if n := r.hits[fmt.Sprintf("%s-%d", s, i)]; n != 1 {
				r.h.tb.Fatalf("%s-%d hit %d times", s, i, n)
			}
		}
		if fmt.Sprint(r.order[s]) != "[0 1 2 3 4]" {
			r.h.tb.Fatalf("update domains of %s in order %v", s, r.order[s])
		}
	}
}

func startCampaign(h *harness, spec forewarn.CampaignSpec) *forewarn.Campaign {
	h.tb.Helper()
	c, err := h.f.StartCampaign(h.ctx, spec)
	if err != nil {
		h.tb.Fatalf("start campaign: %v", err)
	}
	return c
}

func TestCampaignWalksUpdateDomains(t *testing.T) {
	for _, parallel := range []int{1, 2, 3} {
		t.Run(fmt.Sprint("parallel", parallel), func(t *testing.T) {
			h := mustOpenHarness(t, Config{AlwaysEnabled: true})
			scopes := fleet3x5(h)
			c := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: scopes, ParallelScopes: parallel})
			r := newRollout(h, c)
			r.run(nil)
			r.checkComplete(scopes)
			if c = h.campaign(c.ID); c.State != forewarn.CampaignDone || !c.EstimatedEnd.IsZero() {
				t.Fatalf("campaign at the end: %+v", c)
			}
			// 15 update domains of 15 min notice + 5 s, in 3/parallel lanes.
			lanes := (3 + parallel - 1) / parallel
			// The first NotBefore is rounded up to the whole second.
			want := time.Duration(lanes*5) * (15*time.Minute + 5*time.Second)
			if took := c.EndedAt.Sub(c.CreatedAt); took < want || took > want+time.Second {
				t.Fatalf("took %v, want %v", took, want)
			}
		})
	}
}

func TestCampaignApprovalsShortenIt(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	scopes := fleet3x5(h)
	c := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: scopes, ParallelScopes: 3})
	r := newRollout(h, c)
	r.onEvent = func(e *forewarn.Event) {
		if err := h.f.Metadata().Approve(h.ctx, e.Resources[0], []string{e.ID}); err != nil {
			t.Fatal(err)
		}
	}
	r.run(nil)
	r.checkComplete(scopes)
	c = h.campaign(c.ID)
	if took := c.EndedAt.Sub(c.CreatedAt); took != 5*5*time.Second {
		t.Fatalf("approved campaign took %v, want 25s of impact only", took)
	}
}

func TestCampaignPauseResumeCancel(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	scopes := fleet3x5(h)
	c := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: scopes[:1]})
	r := newRollout(h, c)
	r.run(func() bool { return len(r.seen) == 2 })

	steer := func(a forewarn.CampaignAction) *forewarn.Campaign {
		c, err := h.f.SteerCampaign(h.ctx, c.ID, a)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		return c
	}
	if got := steer(forewarn.PauseCampaign); got.State != forewarn.CampaignPaused {
		t.Fatalf("paused: %+v", got)
	}
	// The event in flight goes on; no new one comes.
	h.tick(16 * time.Minute)
	h.tick(time.Hour)
	if events := h.events(forewarn.EventQuery{}); len(events) != 0 {
		t.Fatalf("a paused campaign created %+v", events)
	}
	// Its progress still counts the event that ended while paused.
	if p := h.campaign(c.ID); p.Scopes[0].Done != 2 || p.Scopes[0].Event != "" {
		t.Fatalf("paused campaign's progress: %+v", p.Scopes[0])
	}
	if got := steer(forewarn.ResumeCampaign); got.Scopes[0].Done != 2 || got.Scopes[0].Event == "" {
		t.Fatalf("resumed: %+v", got.Scopes[0])
	}
	r.run(func() bool { return len(r.seen) == 3 })
	got := steer(forewarn.CancelCampaign)
	if got.State != forewarn.CampaignCancelled {
		t.Fatalf("cancelled: %+v", got)
	}
	if events := h.events(forewarn.EventQuery{}); len(events) != 0 {
		t.Fatalf("cancel left %+v", events)
	}
	h.tick(time.Hour)
	if events := h.events(forewarn.EventQuery{}); len(events) != 0 {
		t.Fatalf("a cancelled campaign created %+v", events)
	}
	if _, err := h.f.SteerCampaign(h.ctx, c.ID, forewarn.ResumeCampaign); err == nil {
		t.Fatal("resumed a cancelled campaign")
	}
}

func TestCampaignSurvivesRestart(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	scopes := fleet3x5(h)
	c := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: scopes, ParallelScopes: 2})
	r := newRollout(h, c)
	r.run(func() bool { return len(r.seen) == 4 })
	h.reopen()
	r.run(nil)
	r.checkComplete(scopes)
}

func TestCampaignWaitsForBusyVM(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	scopes := fleet3x5(h)
	user := h.operate("web-0", forewarn.OpRestart) // update domain 0
	c := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: scopes[:1]})
	if p := c.Scopes[0]; p.Event != "" || p.Waiting == "" {
		t.Fatalf("campaign did not wait for %s: %+v", user.ID, p)
	}
	r := newRollout(h, c)
	r.run(nil)
	if r.hits["web-0"] != 1 || r.hits["web-5"] != 1 {
		t.Fatalf("hits %v", r.hits)
	}
}

// TestCampaignCancelInBatches: a campaign with more Scheduled events than
// a transaction may cancel (maxAdvanceBatch, as etcd's limit makes it) is
// cancelled in several, all of its events end cancelled, and one that has
// started goes on.
func TestCampaignCancelInBatches(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	scopes := fleet3x5(h)
	for i := range 4 {
		name := fmt.Sprintf("more-%d", i)
		h.scope(forewarn.ScopeSpec{Name: name})
		h.vm(forewarn.VMSpec{Name: name + "-0", Scope: name})
		scopes = append(scopes, name)
	}
	c := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: scopes, ParallelScopes: len(scopes)})
	events, _, err := h.f.Events(h.ctx, forewarn.EventQuery{})
	if err != nil || len(events) != len(scopes) {
		t.Fatalf("campaign over %d scopes has %d events (%v)", len(scopes), len(events), err)
	}
	started, err := h.f.Approve(h.ctx, events[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	h.f.advanceBatch.Store(2)
	got, err := h.f.SteerCampaign(h.ctx, c.ID, forewarn.CancelCampaign)
	if err != nil || got.State != forewarn.CampaignCancelled {
		t.Fatalf("cancel = %+v, %v; want cancelled", got, err)
	}
	left := h.events(forewarn.EventQuery{})
	if len(left) != 1 || left[0].ID != started.ID {
		t.Errorf("cancel left %d events in flight, want only the started %s", len(left), started.ID)
	}
	history, err := h.f.History(h.ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	cancelled := 0
	for _, e := range history {
		if e.Outcome == forewarn.Cancelled && e.Campaign == c.ID {
			cancelled++
		}
	}
	if cancelled != len(scopes)-1 {
		t.Errorf("%d of the campaign's events were cancelled, want %d", cancelled, len(scopes)-1)
	}
}

// TestCancelledCampaignWaitsForNothing: a scope that waited for a busy VM
// no longer says so once its campaign is cancelled.
func TestCancelledCampaignWaitsForNothing(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	scopes := fleet3x5(h)
	h.operate("web-0", forewarn.OpRestart) // update domain 0
	c := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: scopes[:1]})
	if c.Scopes[0].Waiting == "" {
		t.Fatalf("campaign did not wait: %+v", c.Scopes[0])
	}
	got, err := h.f.SteerCampaign(h.ctx, c.ID, forewarn.CancelCampaign)
	if err != nil {
		t.Fatal(err)
	}
	if p := got.Scopes[0]; p.Waiting != "" {
		t.Errorf("cancelled campaign still waits: %+v", p)
	}
}

func TestCampaignReportsNoNotice(t *testing.T) {
	h := mustOpenHarness(t, Config{})
	h.scope(forewarn.ScopeSpec{Name: "web"})
	h.vm(forewarn.VMSpec{Name: "web-0", Scope: "web"})
	c := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Reboot, All: true})
	if !c.Scopes[0].NoNotice {
		t.Fatalf("not reported: %+v", c.Scopes)
	}
	if e := h.mustOnlyEvent("web"); e.Status != forewarn.Started || e.Description != descHost {
		t.Fatalf("event of a disabled scope: %+v", e)
	}
}

func TestCampaignSpecErrors(t *testing.T) {
	h := mustOpenHarness(t, Config{})
	h.scope(forewarn.ScopeSpec{Name: "web"})
	for _, spec := range []forewarn.CampaignSpec{
		{Type: forewarn.Preempt, All: true},
		{Type: forewarn.Freeze},
		{Type: forewarn.Freeze, All: true, Scopes: []string{"web"}},
		{Type: forewarn.Freeze, Scopes: []string{"nope"}},
		{Type: forewarn.Freeze, Scopes: []string{"web", "WEB"}},
		{Type: forewarn.Freeze, All: true, Notice: -1},
	} {
		if _, err := h.f.StartCampaign(h.ctx, spec); err == nil {
			t.Errorf("accepted %+v", spec)
		}
	}
	all, err := h.f.Campaigns(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 0 {
		t.Fatalf("a refused campaign was stored: %+v", all)
	}
}
