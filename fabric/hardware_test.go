package fabric

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

func TestHardwareFailure(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true, MaxUserOps: 1})
	h.scope(forewarn.ScopeSpec{Name: "web"})
	h.vm(forewarn.VMSpec{Name: "web-0", Scope: "web"})
	h.vm(forewarn.VMSpec{Name: "web-1", Scope: "web"})
	user := h.operate("web-0", forewarn.OpRestart) // the scope's one user operation
	inc := h.incarnation("web")
	// Allowed beside another event of the VM, and beyond the user limit.
	e, err := h.f.Fail(h.ctx, "web-0")
	if err != nil {
		t.Fatal(err)
	}
	if e.Status != forewarn.Started || e.Type != forewarn.Reboot || e.Source != forewarn.Platform ||
		e.Description != "Host server is undergoing an emergency repair." || !e.NotBefore.IsZero() {
		t.Fatalf("failure event %+v", e)
	}
	if h.incarnation("web") != inc+1 {
		t.Fatal("a failure is one change")
	}
	h.tick(forewarn.RepairImpact - time.Nanosecond)
	if h.event(e.ID) == nil {
		t.Fatal("repair ended early")
	}
	h.tick(time.Nanosecond)
	if h.event(e.ID) != nil || h.event(user.ID) == nil {
		t.Fatal("repair not over after 600 s, or it took the user's event with it")
	}
}

func TestDegradedHardware(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.vm(forewarn.VMSpec{Name: "solo"})
	e, err := h.f.Degrade(h.ctx, "solo", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := forewarn.CeilSecond(t0.Add(7 * 24 * time.Hour))
	if e.Type != forewarn.Redeploy || e.Source != forewarn.Platform || !e.NotBefore.Equal(want) ||
		e.Description != "Host server is going to be serviced because of degraded hardware." {
		t.Fatalf("degrade event %+v", e)
	}
	if _, err := h.f.Degrade(h.ctx, "solo", time.Hour); !errors.Is(err, forewarn.ErrConflict) {
		t.Fatalf("second event on the VM: %v", err)
	}
	if _, err := h.f.Degrade(h.ctx, "solo", -time.Hour); !errors.Is(err, forewarn.ErrInvalid) {
		t.Fatalf("negative notice: %v", err)
	}
}

// fakeActuator records its runs and fails on the VMs it is told to.
type fakeActuator struct {
	mu      sync.Mutex
	runs    map[string]int
	fail    map[string]bool
	block   chan struct{} // if set, runs wait for it or ctx
	entered chan string   // if set, told of each run that waits
}

func (a *fakeActuator) Name() string { return "fake" }

func (a *fakeActuator) Actuate(ctx context.Context, e *forewarn.Event, vm *forewarn.VM) error {
	if a.block != nil {
		if a.entered != nil {
			a.entered <- vm.Name
		}
		select {
		case <-a.block:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.runs[vm.Name]++
	if a.fail[vm.Name] {
		return errors.New("command failed")
	}
	return nil
}

func (a *fakeActuator) count(vm string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.runs[vm]
}

// waitEvent waits until the event satisfies ok (the actuator runs in
// goroutines of its own).
func (h *harness) waitEvent(id string, ok func(*forewarn.Event) bool) {
	h.tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if ok(h.event(id)) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.tb.Fatalf("event %s never reached the state: %+v", id, h.event(id))
}

func TestActuatorCarriesOutEvents(t *testing.T) {
	act := &fakeActuator{runs: map[string]int{}, fail: map[string]bool{"web-1": true}}
	h := mustOpenHarness(t, Config{AlwaysEnabled: true, Actuator: act})
	h.scope(forewarn.ScopeSpec{Name: "web"})
	ud := 0
	h.vm(forewarn.VMSpec{Name: "web-0", Scope: "web", UpdateDomain: &ud})
	h.vm(forewarn.VMSpec{Name: "web-1", Scope: "web", UpdateDomain: &ud})
	c := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Reboot, Scopes: []string{"web"}})
	id := c.Scopes[0].Event
	if _, err := h.f.Approve(h.ctx, id); err != nil {
		t.Fatal(err)
	}
	h.tick(0)
	h.waitEvent(id, func(e *forewarn.Event) bool { return len(e.Actuated) == 1 && len(e.Failed) == 1 })
	// Held Started past its nominal end until an admin resolves it.
	h.tick(2 * time.Minute)
	if e := h.event(id); e.Status != forewarn.Started || e.Actuator != "fake" {
		t.Fatalf("event with a failed VM: %+v", e)
	}
	// Retry: the failed VM runs again; it fails again until fixed.
	act.mu.Lock()
	act.fail["web-1"] = false
	act.mu.Unlock()
	if _, err := h.f.Resolve(h.ctx, id, forewarn.Resolution{Action: forewarn.ResolveRetry}); err != nil {
		t.Fatal(err)
	}
	h.tick(0)
	h.waitEvent(id, func(e *forewarn.Event) bool { return e == nil })
	if act.count("web-0") != 1 || act.count("web-1") != 2 {
		t.Fatalf("runs %v", act.runs)
	}
}

func TestActuationRerunAfterRestart(t *testing.T) {
	act := &fakeActuator{runs: map[string]int{}, block: make(chan struct{}), entered: make(chan string, 1)}
	h := mustOpenHarness(t, Config{AlwaysEnabled: true, Actuator: act})
	h.vm(forewarn.VMSpec{Name: "solo"})
	e := h.operate("solo", forewarn.OpRestart)
	h.f.Approve(h.ctx, e.ID)

	ctx, cancel := context.WithCancel(h.ctx)
	done := make(chan error)
	go func() { done <- h.f.Run(ctx) }()
	// Stop the server while the run is under way.
	<-act.entered
	cancel()
	<-done
	if act.count("solo") != 0 || h.event(e.ID) == nil {
		t.Fatal("the interrupted run finished")
	}
	close(act.block)
	act.entered = nil
	h.reopen()
	h.tick(0)
	h.waitEvent(e.ID, func(e *forewarn.Event) bool { return e == nil })
	if act.count("solo") != 1 {
		t.Fatalf("runs after restart: %d", act.count("solo"))
	}
}

func TestResolveRules(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.vm(forewarn.VMSpec{Name: "solo"})
	e := h.operate("solo", forewarn.OpRestart)
	if _, err := h.f.Resolve(h.ctx, e.ID, forewarn.Resolution{Action: forewarn.ResolveComplete}); !errors.Is(err, forewarn.ErrConflict) {
		t.Fatalf("resolve a Scheduled event: %v", err)
	}
	if _, err := h.f.Resolve(h.ctx, e.ID, forewarn.Resolution{Action: "redo"}); !errors.Is(err, forewarn.ErrInvalid) {
		t.Fatalf("bad action: %v", err)
	}
	if _, err := h.f.Approve(h.ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	// Its actuation has not failed: it completes by itself, unless forced.
	complete := forewarn.Resolution{Action: forewarn.ResolveComplete}
	if _, err := h.f.Resolve(h.ctx, e.ID, complete); !errors.Is(err, forewarn.ErrConflict) || h.event(e.ID) == nil {
		t.Fatalf("complete an event whose actuation never failed: %v", err)
	}
	complete.Force = true
	if _, err := h.f.Resolve(h.ctx, e.ID, complete); err != nil || h.event(e.ID) != nil {
		t.Fatalf("complete --force: %v", err)
	}
}

func TestChaosRules(t *testing.T) {
	h := mustOpenHarness(t, Config{})
	h.vm(forewarn.VMSpec{Name: "solo"})
	for _, bad := range []forewarn.ChaosSpec{
		{Status: 404, Fraction: 1, For: forewarn.Duration(time.Minute)},
		{Status: 500, Fraction: 1.5, For: forewarn.Duration(time.Minute)},
		{Status: 500, Fraction: 1, For: forewarn.Duration(30 * 24 * time.Hour)},
		{Status: 500, Fraction: 1},
		{Status: 500, Delay: forewarn.Duration(time.Second), Fraction: 1, For: forewarn.Duration(time.Minute)},
		{Status: 500, Fraction: 1, For: forewarn.Duration(time.Minute), Scope: "nope"},
		{Status: 500, Fraction: 1, For: forewarn.Duration(time.Minute), Scope: "solo", VM: "solo"},
		{Delay: forewarn.Duration(forewarn.MaxChaosDelay + time.Second), Fraction: 1, For: forewarn.Duration(time.Hour)},
	} {
		if _, err := h.f.AddChaos(h.ctx, bad); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
	r, err := h.f.AddChaos(h.ctx, forewarn.ChaosSpec{Status: 410, For: forewarn.Duration(time.Minute), VM: "solo"})
	if err != nil || r.Fraction != 1 {
		t.Fatalf("no fraction means every request: %+v, %v", r, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if rules, _ := h.f.Chaos(h.ctx); len(rules) != 1 || len(h.pub.chaos) != 1 || !r.Until.Equal(t0.Add(time.Minute)) {
		t.Fatalf("rules %+v, published %+v", rules, h.pub.chaos)
	}
	h.clock.Advance(time.Minute)
	if rules, _ := h.f.Chaos(h.ctx); len(rules) != 0 {
		t.Fatalf("expired rule still listed: %+v", rules)
	}
	r, _ = h.f.AddChaos(h.ctx, forewarn.ChaosSpec{Delay: forewarn.Duration(time.Second), Fraction: 1, For: forewarn.Duration(time.Hour)})
	if err := h.f.DeleteChaos(h.ctx, r.ID); err != nil || len(h.pub.chaos) != 0 {
		t.Fatalf("delete: %v, published %+v", err, h.pub.chaos)
	}
	if err := h.f.DeleteChaos(h.ctx, r.ID); !errors.Is(err, forewarn.ErrNotFound) {
		t.Fatalf("delete twice: %v", err)
	}
}
