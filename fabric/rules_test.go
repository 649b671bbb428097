package fabric

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

func TestSecondOperationOnVMIsRefused(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.vm(forewarn.VMSpec{Name: "solo"})
	e := h.operate("solo", forewarn.OpRestart)
	_, err := h.f.Operate(h.ctx, "solo", forewarn.OpRedeploy)
	if !errors.Is(err, forewarn.ErrConflict) || !strings.Contains(err.Error(), e.ID) {
		t.Fatalf("second operation: %v; want a conflict naming %s", err, e.ID)
	}
}

func TestUserOperationLimit(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true, MaxUserOps: 3})
	h.scope(forewarn.ScopeSpec{Name: "web"})
	for i := range 4 {
		h.vm(forewarn.VMSpec{Name: fmt.Sprintf("web-%d", i), Scope: "web"})
	}
	for i := range 3 {
		h.operate(fmt.Sprintf("web-%d", i), forewarn.OpRestart)
	}
	inc := h.incarnation("web")
	if _, err := h.f.Operate(h.ctx, "web-3", forewarn.OpRestart); !errors.Is(err, forewarn.ErrLimit) {
		t.Fatalf("fourth operation: %v; want ErrLimit", err)
	}
	if h.incarnation("web") != inc {
		t.Fatal("a refused operation changed the scope")
	}
}

func TestOperationRules(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.scope(forewarn.ScopeSpec{Name: "ss", Kind: forewarn.ScaleSet})
	h.vm(forewarn.VMSpec{Name: "regular", Scope: "ss"})
	h.vm(forewarn.VMSpec{Name: "alone", Priority: "spot"})
	for _, tc := range []struct {
		vm   string
		op   forewarn.Operation
		want error
	}{
		{"regular", forewarn.OpEvict, forewarn.ErrInvalid},
		{"alone", forewarn.OpTerminate, forewarn.ErrInvalid},
		{"nobody", forewarn.OpRestart, forewarn.ErrNotFound},
		{"alone", "reboot", forewarn.ErrInvalid},
	} {
		if _, err := h.f.Operate(h.ctx, tc.vm, tc.op); !errors.Is(err, tc.want) {
			t.Errorf("%s %s: %v; want %v", tc.op, tc.vm, err, tc.want)
		}
	}
	if e := h.operate("alone", forewarn.OpEvict); e.Type != forewarn.Preempt {
		t.Fatalf("evict spot: %+v", e)
	}
}

func TestCancel(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.vm(forewarn.VMSpec{Name: "a"})
	h.vm(forewarn.VMSpec{Name: "b"})
	e := h.operate("a", forewarn.OpRestart)
	inc := h.incarnation("a")
	if _, err := h.f.Cancel(h.ctx, e.ID); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	if h.event(e.ID) != nil || h.incarnation("a") != inc+1 {
		t.Fatal("cancelled event still there, or no new incarnation")
	}
	hist, err := h.f.History(h.ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 1 || hist[0].Outcome != forewarn.Cancelled {
		t.Fatalf("history: %+v", hist)
	}
	started := h.approve(h.operate("b", forewarn.OpRestart).ID)
	if _, err := h.f.Cancel(h.ctx, started.ID); !errors.Is(err, forewarn.ErrConflict) {
		t.Fatalf("cancel started: %v", err)
	}
}

func TestRestartMidLife(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.scope(forewarn.ScopeSpec{Name: "web"})
	h.vm(forewarn.VMSpec{Name: "web-0", Scope: "web"})
	h.vm(forewarn.VMSpec{Name: "web-1", Scope: "web"})
	scheduled := h.operate("web-0", forewarn.OpRestart)
	started := h.approve(h.operate("web-1", forewarn.OpRedeploy).ID)
	inc := h.incarnation("web")
	before := h.events(forewarn.EventQuery{Scope: "web"})
	if len(before) != 2 {
		t.Fatalf("events before the restart: %+v, want the scheduled and the started one", before)
	}

	h.reopen()
	after := h.events(forewarn.EventQuery{Scope: "web"})
	if !reflect.DeepEqual(before, after) || h.incarnation("web") != inc {
		t.Fatalf("after restart: %v (incarnation %d); before %v (%d)", after, h.incarnation("web"), before, inc)
	}
	if snap := h.pub.snapshot("web"); snap == nil || snap.Scope.Incarnation != inc || len(snap.Events) != 2 {
		t.Fatalf("not republished at start: %+v", snap)
	}
	// Deadlines resume from what was stored.
	next, err := h.f.Tick(h.ctx)
	if err != nil || !next.Equal(started.EndsAt) {
		t.Fatalf("next deadline %v, %v; want %v", next, err, started.EndsAt)
	}
	h.tick(started.EndsAt.Sub(h.clock.Now()))
	h.tick(scheduled.NotBefore.Sub(h.clock.Now()))
	if h.event(started.ID) != nil || h.event(scheduled.ID).Status != forewarn.Started {
		t.Fatal("deadlines not kept across the restart")
	}
}

func TestDeleteVMLeavesEvents(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.scope(forewarn.ScopeSpec{Name: "web"})
	h.vm(forewarn.VMSpec{Name: "web-0", Scope: "web"})
	e := h.operate("web-0", forewarn.OpRestart)
	inc := h.incarnation("web")
	if err := h.f.DeleteVM(h.ctx, "WEB-0"); err != nil {
		t.Fatal(err)
	}
	if h.event(e.ID) != nil || h.incarnation("web") != inc+1 {
		t.Fatal("event of a deleted VM is still in flight")
	}
}

func TestRunStartsAtNotBefore(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true, TimeScale: 60})
	h.vm(forewarn.VMSpec{Name: "solo"})
	ctx, cancel := context.WithCancel(h.ctx)
	done := make(chan error)
	go func() { done <- h.f.Run(ctx) }()
	defer func() { cancel(); <-done }()

	e := h.operate("solo", forewarn.OpRestart) // 15 s of notice at scale 60
	h.waitFor(func(s *forewarn.ScopeSnapshot) bool {
		return len(s.Events) == 1 && s.Events[0].Status == forewarn.Started
	}, "solo", func() { h.clock.Advance(time.Second) })
	if got := h.clock.Now(); got.Before(e.NotBefore) {
		t.Fatalf("started at %v, before NotBefore %v", got, e.NotBefore)
	}
	h.waitFor(func(s *forewarn.ScopeSnapshot) bool { return len(s.Events) == 0 },
		"solo", func() { h.clock.Advance(time.Second) })
}

// waitFor steps the clock until the scope's published state satisfies ok.
// Before each step it lets Run settle: either a new snapshot arrives or Run
// sleeps on its deadline timer and flush ticker.
func (h *harness) waitFor(ok func(*forewarn.ScopeSnapshot) bool, scope string, step func()) {
	h.tb.Helper()
	for range 1000 {
		if s := h.pub.snapshot(scope); s != nil && ok(s) {
			return
		}
		ctx, cancel := context.WithTimeout(h.ctx, 100*time.Millisecond)
		select {
		case <-h.pub.changed:
			cancel()
			continue
		case <-ctx.Done():
		}
		if err := h.clock.BlockUntilContext(h.ctx, 2); err != nil {
			h.tb.Fatal(err)
		}
		cancel()
		step()
	}
	h.tb.Fatalf("scope %s never reached the state", scope)
}
