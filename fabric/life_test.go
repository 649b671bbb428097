package fabric

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// lifeCase is one user operation followed through its whole life.
type lifeCase struct {
	op       forewarn.Operation
	kind     forewarn.ScopeKind
	priority forewarn.Priority
	typ      forewarn.EventType
	source   forewarn.Source
	notice   time.Duration
	impact   time.Duration
	state    forewarn.VMState
	deletes  bool
}

var lifeCases = []lifeCase{
	// Freeze comes only from platform maintenance: created by platformEvent.
	{"", forewarn.AvailabilitySet, forewarn.Regular, forewarn.Freeze, forewarn.Platform,
		15 * time.Minute, 5 * time.Second, forewarn.Frozen, false},
	{forewarn.OpRestart, forewarn.AvailabilitySet, forewarn.Regular, forewarn.Reboot, forewarn.User,
		15 * time.Minute, 60 * time.Second, forewarn.Rebooting, false},
	{forewarn.OpRedeploy, forewarn.CloudService, forewarn.Regular, forewarn.Redeploy, forewarn.User,
		10 * time.Minute, 300 * time.Second, forewarn.Redeploying, false},
	{forewarn.OpEvict, forewarn.ScaleSet, forewarn.Spot, forewarn.Preempt, forewarn.Platform,
		30 * time.Second, 30 * time.Second, forewarn.Deleting, true},
	{forewarn.OpTerminate, forewarn.ScaleSet, forewarn.Regular, forewarn.Terminate, forewarn.User,
		5 * time.Minute, 30 * time.Second, forewarn.Deleting, true},
}

func TestLifeOfEachType(t *testing.T) {
	for _, tc := range lifeCases {
		for _, scale := range []float64{1, 60} {
			t.Run(fmt.Sprintf("%s/scale%g", tc.typ, scale), func(t *testing.T) {
				testLife(t, tc, scale)
			})
		}
	}
}

func testLife(t *testing.T, tc lifeCase, scale float64) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true, TimeScale: scale})
	h.scope(forewarn.ScopeSpec{Name: "web", Kind: tc.kind})
	h.vm(forewarn.VMSpec{Name: "web-0", Scope: "web", Priority: tc.priority})
	inc := h.incarnation("web")

	var e *forewarn.Event
	if tc.op == "" {
		e = h.platformEvent("web-0", tc.typ)
	} else {
		e = h.operate("web-0", tc.op)
	}
	notice := time.Duration(float64(tc.notice) / scale)
	wantNB := t0.Add(notice).Truncate(time.Second).Add(time.Second) // t0 is mid-second
	if e.Type != tc.typ || e.Source != tc.source || e.Status != forewarn.Scheduled || !e.NotBefore.Equal(wantNB) {
		t.Fatalf("created %+v; want %s from %s Scheduled at %v", e, tc.typ, tc.source, wantNB)
	}
	if got := h.incarnation("web"); got != inc+1 {
		t.Fatalf("incarnation after create = %d, want %d", got, inc+1)
	}

	// One tick before NotBefore: nothing happens.
	h.tick(wantNB.Sub(h.clock.Now()) - time.Nanosecond)
	if got := h.event(e.ID); got.Status != forewarn.Scheduled {
		t.Fatalf("started before NotBefore: %+v", got)
	}
	if got := h.incarnation("web"); got != inc+1 {
		t.Fatalf("incarnation changed with no change: %d", got)
	}

	h.tick(time.Nanosecond)
	started := h.event(e.ID)
	if started.Status != forewarn.Started || !started.NotBefore.IsZero() || started.ID != e.ID {
		t.Fatalf("at NotBefore: %+v", started)
	}
	if got := h.incarnation("web"); got != inc+2 {
		t.Fatalf("incarnation after start = %d, want %d", got, inc+2)
	}
	if vm, _ := h.f.VM(h.ctx, "web-0"); vm.State != tc.state {
		t.Fatalf("vm state during impact = %s, want %s", vm.State, tc.state)
	}

	impact := time.Duration(float64(tc.impact) / scale)
	h.tick(impact - time.Nanosecond)
	if h.event(e.ID) == nil {
		t.Fatal("completed before its impact ended")
	}
	h.tick(time.Nanosecond)
	if h.event(e.ID) != nil {
		t.Fatal("still in flight after its impact ended")
	}
	if got := h.incarnation("web"); got != inc+3 {
		t.Fatalf("incarnation after completion = %d, want %d", got, inc+3)
	}
	vm, err := h.f.VM(h.ctx, "web-0")
	if tc.deletes != errors.Is(err, forewarn.ErrNotFound) {
		t.Fatalf("vm after completion: %+v, %v; deleted want %v", vm, err, tc.deletes)
	}
	if !tc.deletes && vm.State != forewarn.Running {
		t.Fatalf("vm state after completion = %s", vm.State)
	}
	hist, _ := h.f.History(h.ctx, 10)
	if len(hist) != 1 || hist[0].ID != e.ID || hist[0].Outcome != forewarn.Completed {
		t.Fatalf("history = %+v", hist)
	}
	if snap := h.pub.snapshot("web"); snap.Scope.Incarnation != inc+3 || len(snap.Events) != 0 {
		t.Fatalf("published %+v", snap)
	}
}

func TestApprovalStartsAtOnce(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.scope(forewarn.ScopeSpec{Name: "web"})
	h.vm(forewarn.VMSpec{Name: "web-0", Scope: "web"})
	h.vm(forewarn.VMSpec{Name: "web-1", Scope: "web"})
	e := h.operate("web-0", forewarn.OpRestart)
	inc := h.incarnation("web")

	h.clock.Advance(time.Minute)
	// Any VM of the scope may approve, in any case of the id.
	if err := h.f.Metadata().Approve(h.ctx, "web-1", []string{strings.ToUpper(e.ID)}); err != nil {
		t.Fatalf("approve: %v", err)
	}
	got := h.event(e.ID)
	if got.Status != forewarn.Started || got.ApprovedBy != "web-1" || !got.ApprovedAt.Equal(h.clock.Now()) {
		t.Fatalf("after approval: %+v", got)
	}
	if h.incarnation("web") != inc+1 {
		t.Fatalf("approval and start must be one change: incarnation %d, want %d", h.incarnation("web"), inc+1)
	}
	// Approving again is a no-op.
	if err := h.f.Metadata().Approve(h.ctx, "web-0", []string{e.ID}); err != nil {
		t.Fatalf("approve again: %v", err)
	}
	if h.incarnation("web") != inc+1 {
		t.Fatal("a second approval changed the document")
	}
}

func TestAdminApproval(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.vm(forewarn.VMSpec{Name: "solo"})
	e := h.operate("solo", forewarn.OpRedeploy)
	got, err := h.f.Approve(h.ctx, e.ID)
	if err != nil || got.Status != forewarn.Started || got.ApprovedBy != forewarn.ApprovedByAdmin {
		t.Fatalf("admin approve: %+v, %v", got, err)
	}
	if _, err := h.f.Approve(h.ctx, "no-such-event"); !errors.Is(err, forewarn.ErrNotFound) {
		t.Fatalf("approve unknown: %v", err)
	}
}

func TestOtherScopeCannotApprove(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.scope(forewarn.ScopeSpec{Name: "a"})
	h.scope(forewarn.ScopeSpec{Name: "b"})
	h.vm(forewarn.VMSpec{Name: "a-0", Scope: "a"})
	h.vm(forewarn.VMSpec{Name: "b-0", Scope: "b"})
	e := h.operate("a-0", forewarn.OpRestart)
	other := h.operate("b-0", forewarn.OpRestart)
	err := h.f.Metadata().Approve(h.ctx, "b-0", []string{other.ID, e.ID})
	if !errors.Is(err, forewarn.ErrInvalid) || !strings.Contains(err.Error(), e.ID) {
		t.Fatalf("approve from another scope: %v", err)
	}
	if h.event(e.ID).Status != forewarn.Scheduled || h.event(other.ID).Status != forewarn.Scheduled {
		t.Fatal("a refused approval changed something")
	}
}

func TestNotEnabledStartsAtOnce(t *testing.T) {
	h := mustOpenHarness(t, Config{})
	h.vm(forewarn.VMSpec{Name: "solo"})
	e := h.operate("solo", forewarn.OpRestart)
	if e.Status != forewarn.Started || !e.NotBefore.IsZero() {
		t.Fatalf("event of a scope that never asked: %+v", e)
	}
}

func TestEnabling(t *testing.T) {
	h := mustOpenHarness(t, Config{FirstCallDelay: 2 * time.Minute, EnableIdle: 24 * time.Hour})
	h.vm(forewarn.VMSpec{Name: "solo"})

	done := make(chan error)
	go func() { done <- h.f.Metadata().Enable(h.ctx, "solo") }()
	if err := h.clock.BlockUntilContext(h.ctx, 1); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Fatalf("first call answered before the delay: %v", err)
	default:
	}
	h.clock.Advance(2 * time.Minute)
	if err := <-done; err != nil {
		t.Fatalf("enable: %v", err)
	}
	// Later calls are not held.
	if err := h.f.Metadata().Enable(h.ctx, "solo"); err != nil {
		t.Fatal(err)
	}
	if e := h.operate("solo", forewarn.OpRestart); e.Status != forewarn.Scheduled {
		t.Fatalf("enabled scope got no notice: %+v", e)
	}
	if s, _ := h.f.Scope(h.ctx, "solo"); s.EnabledAt.IsZero() {
		t.Fatalf("scope not shown enabled: %+v", s)
	}

	// A day without requests: no notice again, also after a restart.
	h.clock.Advance(24 * time.Hour)
	h.reopen()
	if _, err := h.f.Cancel(h.ctx, h.mustOnlyEvent("solo").ID); err != nil {
		t.Fatal(err)
	}
	if e := h.operate("solo", forewarn.OpRestart); e.Status != forewarn.Started {
		t.Fatalf("idle scope got notice: %+v", e)
	}
}

// TestIdleScopeIsPublished: a scope whose VMs stop asking is published
// again once the idle time has passed, no longer enabled, although nothing
// else about it changed; a scope still asked is not.
func TestIdleScopeIsPublished(t *testing.T) {
	h := mustOpenHarness(t, Config{EnableIdle: time.Hour})
	h.vm(forewarn.VMSpec{Name: "quiet"})
	h.vm(forewarn.VMSpec{Name: "busy"})
	for _, scope := range []string{"quiet", "busy"} {
		if err := h.f.Metadata().Enable(h.ctx, scope); err != nil {
			t.Fatal(err)
		}
		if !h.pub.snapshot(scope).Scope.Enabled {
			t.Fatalf("%s not published enabled after a request", scope)
		}
	}
	for range 3 { // "busy" asks every 30 minutes; "quiet" never again
		h.clock.Advance(30 * time.Minute)
		if err := h.f.Metadata().Enable(h.ctx, "busy"); err != nil {
			t.Fatal(err)
		}
		if err := h.f.publishLapsed(h.ctx); err != nil {
			t.Fatal(err)
		}
	}
	if h.pub.snapshot("quiet").Scope.Enabled {
		t.Error("quiet, idle for 90 minutes of a 1 h idle time, is still published enabled")
	}
	if !h.pub.snapshot("busy").Scope.Enabled {
		t.Error("busy, asked every 30 minutes, was published as not enabled")
	}
}

func (h *harness) mustOnlyEvent(scope string) *forewarn.Event {
	h.tb.Helper()
	events, _, err := h.f.Events(h.ctx, forewarn.EventQuery{Scope: scope})
	if err != nil || len(events) != 1 {
		h.tb.Fatalf("events of %s: %v, %v", scope, events, err)
	}
	return events[0]
}

// platformEvent schedules a platform event of the given type on one VM with
// the minimum notice of its type, through the same path as user operations.
func (h *harness) platformEvent(vm string, typ forewarn.EventType) *forewarn.Event {
	h.tb.Helper()
	var e *forewarn.Event
	err := h.f.update(h.ctx, func(t *txn) error {
		v, err := t.VM(vm)
		if err != nil {
			return err
		}
		scope, err := t.Scope(v.Scope)
		if err != nil {
			return err
		}
		e = &forewarn.Event{ID: "0f0e0d0c-0000-4000-8000-000000000001", Type: typ, Status: forewarn.Scheduled,
			Scope: scope.Name, Resources: []string{v.Name}, Source: forewarn.Platform, CreatedAt: t.now}
		return h.f.schedule(t, e, scope, noticeOf(typ, scope, 0))
	})
	if err != nil {
		h.tb.Fatalf("platform %s on %s: %v", typ, vm, err)
	}
	return e
}
