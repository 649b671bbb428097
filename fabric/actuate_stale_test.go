package fabric

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/memstore"
	"github.com/jonboulle/clockwork"
)

// gatedActuator holds each VM's run until its gate closes (or ctx ends)
// and counts the runs that went through.
type gatedActuator struct {
	mu      sync.Mutex
	gates   map[string]chan struct{}
	runs    map[string]int
	entered chan string
}

func (a *gatedActuator) Name() string { return "gated" }

func (a *gatedActuator) Actuate(ctx context.Context, e *forewarn.Event, vm *forewarn.VM) error {
	a.entered <- vm.Name
	a.mu.Lock()
	g := a.gates[vm.Name]
	a.mu.Unlock()
	if g != nil {
		select {
		case <-g:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.runs[vm.Name]++
	return nil
}

func (a *gatedActuator) count(vm string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.runs[vm]
}

// reviewStore wraps a store: an Update can commit and then report an error
// (an ambiguous etcd commit: "request timed out" after the write landed),
// and Views can be held (a slow read).
type reviewStore struct {
	forewarn.Store
	ambiguous atomic.Bool
	viewGate  atomic.Pointer[chan struct{}]
}

func (s *reviewStore) Update(ctx context.Context, fn func(forewarn.Tx) error) error {
	err := s.Store.Update(ctx, fn)
	if err == nil && s.ambiguous.CompareAndSwap(true, false) {
		return errors.New("etcdserver: request timed out (the write may have landed)")
	}
	return err
}

func (s *reviewStore) View(ctx context.Context, fn func(forewarn.Tx) error) error {
	if g := s.viewGate.Load(); g != nil {
		<-*g
	}
	return s.Store.View(ctx, fn)
}

// twoVMEvent opens a fabric over a reviewStore with the gated actuator and
// starts a Reboot of one update domain of two VMs, web-0 and web-1.
func twoVMEvent(t *testing.T) (*Fabric, *reviewStore, *gatedActuator, *clockwork.FakeClock, string) {
	b := memstore.New()
	t.Cleanup(func() { b.Close() })
	rs := &reviewStore{Store: b}
	clock := clockwork.NewFakeClockAt(t0)
	act := &gatedActuator{gates: map[string]chan struct{}{}, runs: map[string]int{}, entered: make(chan string, 16)}
	ctx := context.Background()
	f, err := New(ctx, Config{Store: rs, Clock: clock, Actuator: act, AlwaysEnabled: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.CreateScope(ctx, forewarn.ScopeSpec{Name: "web", UpdateDomains: 1}); err != nil {
		t.Fatal(err)
	}
	ud := 0
	for _, n := range []string{"web-0", "web-1"} {
		if _, err := f.CreateVM(ctx, forewarn.VMSpec{Name: n, Scope: "web", UpdateDomain: &ud}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := f.StartCampaign(ctx, forewarn.CampaignSpec{Type: forewarn.Reboot, Scopes: []string{"web"}})
	if err != nil {
		t.Fatal(err)
	}
	id := c.Scopes[0].Event
	if _, err := f.Approve(ctx, id); err != nil {
		t.Fatal(err)
	}
	return f, rs, act, clock, id
}

func waitRuns(t *testing.T, f *Fabric, n int) {
	t.Helper()
	for limit := time.Now().Add(5 * time.Second); time.Now().Before(limit); {
		if f.RunsUnderWay() == n {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("runs under way: %d, want %d", f.RunsUnderWay(), n)
}

// TestAmbiguousRecordRunsOnce: the record of web-0's run commits but
// reports an error (an etcd timeout after the write landed); the retry
// finds the run recorded in the store and does not run it again.
func TestAmbiguousRecordRunsOnce(t *testing.T) {
	f, rs, act, clock, id := twoVMEvent(t)
	ctx := context.Background()
	act.gates["web-0"] = make(chan struct{})
	act.gates["web-1"] = make(chan struct{})
	defer close(act.gates["web-1"])
	if _, err := f.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	<-act.entered
	<-act.entered
	rs.ambiguous.Store(true)
	close(act.gates["web-0"])
	waitRuns(t, f, 1) // web-0's run is over, web-1's goes on
	e, err := f.Event(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !containsName(e.Actuated, "web-0") {
		t.Fatalf("web-0's record did not land: %+v", e)
	}
	clock.Advance(retryAfter) // the retry's poke
	if _, err := f.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	waitRuns(t, f, 1)
	if n := act.count("web-0"); n != 1 {
		t.Errorf("web-0 rebooted %d times; the store recorded its run before the retry", n)
	}
}

// TestRecreatedVMNotRunByOldEvent: a run is claimed for web-0; before its
// read, web-0 is deleted (the event drops it) and created again; the run
// does not carry the old event out on the new web-0 (DESIGN.md invariant 8).
func TestRecreatedVMNotRunByOldEvent(t *testing.T) {
	f, rs, act, _, id := twoVMEvent(t)
	ctx := context.Background()
	f.campaignsDue.Store(false) // so that this Tick reads nothing but the runs' reads
	gate := make(chan struct{})
	rs.viewGate.Store(&gate)
	if _, err := f.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if err := f.DeleteVM(ctx, "web-0"); err != nil {
		t.Fatal(err)
	}
	ud := 0
	if _, err := f.CreateVM(ctx, forewarn.VMSpec{Name: "web-0", Scope: "web", UpdateDomain: &ud}); err != nil {
		t.Fatal(err)
	}
	rs.viewGate.Store(nil)
	close(gate)
	waitRuns(t, f, 0)
	if n := act.count("web-0"); n != 0 {
		t.Errorf("the new web-0 was rebooted %d times by event %s, which no longer names it", n, id)
	}
}

// viewCounter counts the Views.
type viewCounter struct {
	forewarn.Store
	views atomic.Int64
}

func (s *viewCounter) View(ctx context.Context, fn func(forewarn.Tx) error) error {
	s.views.Add(1)
	return s.Store.View(ctx, fn)
}

// TestStaleSnapshotDoesNotSpin: the leader A has not yet heard (watch lag)
// that replica B deleted web-0 from a started event. Its run on web-0 finds
// the VM gone and is settled; it must not wake the scheduler at once, whose
// next Tick would claim it again from the same stale snapshot: a loop of
// store reads for as long as the watch lags. The count of reads in 200 ms
// is bounded with the fix whatever the machine's speed.
func TestStaleSnapshotDoesNotSpin(t *testing.T) {
	b0 := memstore.New()
	defer b0.Close()
	cs := &viewCounter{Store: b0}
	clock := clockwork.NewFakeClockAt(t0)
	act := &gatedActuator{gates: map[string]chan struct{}{"web-1": make(chan struct{})}, runs: map[string]int{}, entered: make(chan string, 1<<16)}
	ctx := context.Background()
	a, err := New(ctx, Config{Store: cs, Clock: clock, Actuator: act, AlwaysEnabled: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.CreateScope(ctx, forewarn.ScopeSpec{Name: "web", UpdateDomains: 1}); err != nil {
		t.Fatal(err)
	}
	ud := 0
	for _, n := range []string{"web-0", "web-1"} {
		if _, err := a.CreateVM(ctx, forewarn.VMSpec{Name: n, Scope: "web", UpdateDomain: &ud}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := a.StartCampaign(ctx, forewarn.CampaignSpec{Type: forewarn.Reboot, Scopes: []string{"web"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Approve(ctx, c.Scopes[0].Event); err != nil {
		t.Fatal(err)
	}
	b, err := New(ctx, Config{Store: b0, Clock: clock, AlwaysEnabled: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.DeleteVM(ctx, "web-0"); err != nil { // on B; A does not hear of it yet
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- a.Run(rctx) }()
	before := cs.views.Load()
	time.Sleep(200 * time.Millisecond)
	n := cs.views.Load() - before
	close(act.gates["web-1"])
	cancel()
	<-done
	if n > 20 {
		t.Errorf("%d store reads in 200ms while A's snapshot was stale: the run on web-0 spins", n)
	}
}
