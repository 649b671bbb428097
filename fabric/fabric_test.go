package fabric

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/memstore"
	"github.com/jonboulle/clockwork"
)

// t0 is the fake clock's start, mid-second to exercise the rounding.
var t0 = time.Date(2026, 11, 25, 10, 0, 0, 300_000_000, time.UTC)

// harness is a Fabric over an in-memory store, with a fake clock and a
// publisher that checks incarnations only grow.
type harness struct {
	tb    testing.TB
	ctx   context.Context
	cfg   Config
	clock *clockwork.FakeClock
	store *memstore.Store
	pub   *recorder
	f     *Fabric
}

func mustOpenHarness(tb testing.TB, cfg Config) *harness {
	tb.Helper()
	h := &harness{
		tb:    tb,
		ctx:   context.Background(),
		cfg:   cfg,
		clock: clockwork.NewFakeClockAt(t0),
		store: memstore.New(),
		pub:   newRecorder(tb),
	}
	h.open()
	tb.Cleanup(func() { h.store.Close() })
	return h
}

// open starts a Fabric over the harness's store.
func (h *harness) open() {
	h.tb.Helper()
	cfg := h.cfg
	cfg.Store, cfg.Clock = h.store, h.clock
	f, err := New(h.ctx, cfg)
	if err != nil {
		h.tb.Fatalf("new fabric: %v", err)
	}
	if err := f.PublishTo(h.ctx, h.pub); err != nil {
		h.tb.Fatalf("publish: %v", err)
	}
	h.f = f
}

// reopen starts a new Fabric over the store, as a restart of the server:
// it knows only what the store holds. The old one is left idle.
func (h *harness) reopen() {
	h.tb.Helper()
	h.open()
}

func (h *harness) scope(spec forewarn.ScopeSpec) *forewarn.Scope {
	h.tb.Helper()
	s, err := h.f.CreateScope(h.ctx, spec)
	if err != nil {
		h.tb.Fatalf("create scope %q: %v", spec.Name, err)
	}
	return s
}

func (h *harness) vm(spec forewarn.VMSpec) *forewarn.VM {
	h.tb.Helper()
	vm, err := h.f.CreateVM(h.ctx, spec)
	if err != nil {
		h.tb.Fatalf("create vm %q: %v", spec.Name, err)
	}
	return vm
}

func (h *harness) operate(vm string, op forewarn.Operation) *forewarn.Event {
	h.tb.Helper()
	e, err := h.f.Operate(h.ctx, vm, op)
	if err != nil {
		h.tb.Fatalf("%s %s: %v", op, vm, err)
	}
	return e
}

// tick advances the clock by d and does what is due.
func (h *harness) tick(d time.Duration) {
	h.tb.Helper()
	h.clock.Advance(d)
	if _, err := h.f.Tick(h.ctx); err != nil {
		h.tb.Fatalf("tick: %v", err)
	}
}

// incarnation returns a scope's incarnation as stored.
func (h *harness) incarnation(scope string) int64 {
	h.tb.Helper()
	s, err := h.f.Scope(h.ctx, scope)
	if err != nil {
		h.tb.Fatalf("scope %q: %v", scope, err)
	}
	return s.Incarnation
}

// event returns the event in flight, or nil if it is gone.
func (h *harness) event(id string) *forewarn.Event {
	h.tb.Helper()
	e, err := h.f.Event(h.ctx, id)
	if errors.Is(err, forewarn.ErrNotFound) {
		return nil
	} else if err != nil {
		h.tb.Fatalf("event %s: %v", id, err)
	}
	return e
}

// recorder is a Publisher that keeps the last snapshot of each scope and
// fails the test if a scope's incarnation ever goes down.
type recorder struct {
	tb      testing.TB
	mu      sync.Mutex
	last    map[forewarn.Key]*forewarn.ScopeSnapshot
	chaos   []*forewarn.ChaosRule
	changed chan string
}

func newRecorder(tb testing.TB) *recorder {
	return &recorder{tb: tb, last: map[forewarn.Key]*forewarn.ScopeSnapshot{}, changed: make(chan string, 1000)}
}

func (r *recorder) PublishScope(snap *forewarn.ScopeSnapshot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := forewarn.KeyOf(snap.Scope.Name)
	if prev := r.last[key]; prev != nil && snap.Scope.Incarnation < prev.Scope.Incarnation {
		r.tb.Errorf("scope %s: incarnation went from %d to %d", key, prev.Scope.Incarnation, snap.Scope.Incarnation)
	}
	r.last[key] = snap
	select {
	case r.changed <- string(key):
	default:
	}
}

func (r *recorder) PublishChaos(rules []*forewarn.ChaosRule) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.chaos = rules
}

func (r *recorder) RemoveScope(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.last, forewarn.KeyOf(name))
}

func (r *recorder) snapshot(scope string) *forewarn.ScopeSnapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last[forewarn.KeyOf(scope)]
}
