package agent

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/jonboulle/clockwork"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestLeaderFallback: three VMs in one Freeze, the leader's agent not
// running; the other two wait, and one of them approves once the event is
// still Scheduled LeaderFallback before its NotBefore (on the agents' fake
// clock), not a second earlier.
func TestLeaderFallback(t *testing.T) {
	s := mustStartServer(t, 1) // Freeze: 15 min of notice, nothing moves on its own
	if _, err := s.f.CreateScope(s.ctx, forewarn.ScopeSpec{Name: "web"}); err != nil {
		t.Fatal(err)
	}
	addrs := map[string]string{"web-0": "127.0.0.2", "web-1": "127.0.0.3", "web-2": "127.0.0.4"}
	for _, name := range []string{"web-0", "web-1", "web-2"} {
		s.vm(name, "web", addrs[name])
	}
	if _, err := s.f.StartCampaign(s.ctx, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: []string{"web"}}); err != nil {
		t.Fatal(err)
	}
	e := scopeEvent(t, s, "web")
	if len(e.Resources) != 3 {
		t.Fatalf("event resources %v, want the three VMs", e.Resources)
	}
	leader, followers := e.Resources[0], e.Resources[1:]

	const fallback = 30 * time.Second
	fc := clockwork.NewFakeClockAt(time.Now())
	dir := t.TempDir()
	var agents []*runningAgent
	for _, name := range followers {
		agents = append(agents, mustRunAgent(t, Config{Endpoint: s.url, HTTPClient: boundClient(addrs[name]),
			StateFile: filepath.Join(dir, name+".json"), Clock: fc,
			LeaderOnly: true, LeaderFallback: Duration(fallback),
			Hooks:    map[EventType]Hooks{"Freeze": {OnScheduled: recordHook(filepath.Join(dir, name+".log"), "on_scheduled")}},
			Approval: map[EventType]Policy{"Freeze": Immediately}}))
	}
	for _, name := range followers {
		log := filepath.Join(dir, name+".log")
		waitFor(t, name+" on_scheduled", func() bool { return hookCount(t, log, "on_scheduled") == 1 })
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Each follower waits on a fallback timer; none approved on sight.
	if err := fc.BlockUntilContext(ctx, len(followers)); err != nil {
		t.Fatalf("followers not waiting for the fallback: %v", err)
	}
	approvals := func() float64 {
		n := 0.0
		for _, a := range agents {
			n += testutil.ToFloat64(a.metrics.approvals)
		}
		return n
	}
	if n := approvals(); n != 0 {
		t.Fatalf("%v approvals before the fallback", n)
	}

	// A second before the fallback: the timers do not fire (a worker that
	// approved would wait on no timer any more).
	fc.Advance(e.NotBefore.Add(-fallback - time.Second).Sub(fc.Now()))
	if err := fc.BlockUntilContext(ctx, len(followers)); err != nil {
		t.Fatalf("a follower stopped waiting before the fallback: %v", err)
	}
	if now, err := s.f.Event(s.ctx, e.ID); err != nil || now.Status != forewarn.Scheduled || now.ApprovedBy != "" {
		t.Fatalf("before the fallback: event %+v, %v; want it Scheduled and not approved", now, err)
	}
	if n := approvals(); n != 0 {
		t.Fatalf("%v approvals before the fallback", n)
	}

	// At the fallback, a follower approves and the event starts.
	fc.Advance(time.Second)
	var approvedBy string
	waitFor(t, "a follower's approval", func() bool {
		now, err := s.f.Event(s.ctx, e.ID)
		if err != nil { // done already: look in the history
			now = historyOf(t, s, e.ID)
		}
		approvedBy = now.ApprovedBy
		return approvedBy != ""
	})
	if !slices.Contains(followers, approvedBy) || approvedBy == leader {
		t.Fatalf("approved by %q, want one of %v (leader %s is down)", approvedBy, followers, leader)
	}
	waitFor(t, "the approval counted", func() bool { return approvals() >= 1 })
	if n := approvals(); n > float64(len(followers)) {
		t.Fatalf("%v approvals by the followers", n)
	}
}

// scopeEvent waits for the one event of a scope and returns it.
func scopeEvent(t *testing.T, s *server, scope string) *forewarn.Event {
	t.Helper()
	var found *forewarn.Event
	waitFor(t, "an event in scope "+scope, func() bool {
		events, _, err := s.f.Events(s.ctx, forewarn.EventQuery{Scope: scope})
		if err != nil {
			t.Fatal(err)
		}
		if len(events) == 1 {
			found = events[0]
		}
		return found != nil
	})
	return found
}
