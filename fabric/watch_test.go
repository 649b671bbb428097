package fabric

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/memstore"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// watchedStore is a store that reports the changes the test sends,
// as if another replica had made them, and fails the next failViews reads.
type watchedStore struct {
	*memstore.Store
	changes   chan forewarn.Change
	failViews atomic.Int32
}

func (s *watchedStore) View(ctx context.Context, fn func(forewarn.Tx) error) error {
	if s.failViews.Add(-1) >= 0 {
		return errors.New("store out of reach")
	}
	return s.Store.View(ctx, fn)
}

func (s *watchedStore) Watch(ctx context.Context) <-chan forewarn.Change {
	out := make(chan forewarn.Change)
	go func() {
		defer close(out)
		for {
			select {
			case <-ctx.Done():
				return
			case c := <-s.changes:
				out <- c
			}
		}
	}()
	return out
}

// await polls until ok holds, failing after five seconds.
func await(tb testing.TB, what string, ok func() bool) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			tb.Fatalf("%s: not within five seconds", what)
		}
		time.Sleep(5 * time.Millisecond) // the fabric works in its own goroutines
	}
}

// TestFollowOtherWriters: what the store reports changed by someone else is
// read and published: scopes, the chaos rules, and with All a scope that
// is gone is removed even though no change named it.
func TestFollowOtherWriters(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.scope(forewarn.ScopeSpec{Name: "web"})
	h.scope(forewarn.ScopeSpec{Name: "db"})
	store := &watchedStore{Store: h.store, changes: make(chan forewarn.Change)}
	f, err := New(h.ctx, Config{Store: store, Clock: h.clock, AlwaysEnabled: true})
	if err != nil {
		t.Fatal(err)
	}
	pub := newRecorder(t)
	if err := f.PublishTo(h.ctx, pub); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(h.ctx)
	ran := make(chan error, 1)
	go func() { ran <- f.Run(ctx) }()
	defer func() { cancel(); <-ran }()

	// Another writer: the first fabric on the same store.
	if _, err := h.f.CreateVM(h.ctx, forewarn.VMSpec{Name: "web-0", Scope: "web"}); err != nil {
		t.Fatal(err)
	}
	store.changes <- forewarn.Change{Scopes: []string{"web"}}
	await(t, "the new VM", func() bool { s := pub.snapshot("web"); return s != nil && len(s.VMs) == 1 })

	if _, err := h.f.AddChaos(h.ctx, forewarn.ChaosSpec{Status: 500, Fraction: 1, For: forewarn.Duration(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	store.changes <- forewarn.Change{Meta: []string{"enabling"}}
	store.changes <- forewarn.Change{Meta: []string{metaChaos}}
	await(t, "the chaos rule", func() bool {
		pub.mu.Lock()
		defer pub.mu.Unlock()
		return len(pub.chaos) == 1
	})

	if err := h.f.DeleteScope(h.ctx, "db"); err != nil {
		t.Fatal(err)
	}
	store.changes <- forewarn.Change{All: true}
	await(t, "the removal of db", func() bool { return pub.snapshot("db") == nil })
	if pub.snapshot("web") == nil {
		t.Error("web was removed too")
	}

	// A refresh that fails is tried again until it succeeds.
	if _, err := h.f.CreateVM(h.ctx, forewarn.VMSpec{Name: "web-1", Scope: "web"}); err != nil {
		t.Fatal(err)
	}
	store.failViews.Store(2)
	store.changes <- forewarn.Change{Scopes: []string{"web"}}
	await(t, "the second VM, after failed reads", func() bool {
		h.clock.Advance(retryAfter)
		s := pub.snapshot("web")
		return s != nil && len(s.VMs) == 2
	})
}

// electedStore is a store whose election the test decides: Lead
// returns when the test sends the term's context.
type electedStore struct {
	*memstore.Store
	terms chan context.Context
}

func (s *electedStore) Lead(ctx context.Context, _ string) (context.Context, func(forewarn.Tx) error, error) {
	select {
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	case term := <-s.terms:
		return term, func(forewarn.Tx) error { return nil }, nil
	}
}

// TestLeaderMetric: forewarn_leader is 1 exactly while the replica leads.
func TestLeaderMetric(t *testing.T) {
	h := mustOpenHarness(t, Config{})
	store := &electedStore{Store: h.store, terms: make(chan context.Context)}
	reg := prometheus.NewRegistry()
	f, err := New(h.ctx, Config{Store: store, Clock: h.clock, Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(h.ctx)
	ran := make(chan error, 1)
	go func() { ran <- f.Run(ctx) }()
	defer func() { cancel(); <-ran }()
	leading := func(want float64) func() bool {
		return func() bool { return testutil.ToFloat64(f.metrics.leader) == want }
	}
	if !leading(0)() {
		t.Fatal("forewarn_leader is not 0 before the election")
	}
	term, lose := context.WithCancel(h.ctx)
	store.terms <- term
	await(t, "forewarn_leader 1 once elected", leading(1))
	lose()
	await(t, "forewarn_leader 0 once the lead is lost", leading(0))
}

// unwritableStore is a store whose writes fail, as etcd out of reach.
type unwritableStore struct{ *memstore.Store }

func (unwritableStore) Update(context.Context, func(forewarn.Tx) error) error {
	return errors.New("store out of reach")
}

// TestRequestsNeedNoWrite: a request of a VM whose scope has enabled
// Scheduled Events (as the store shows) is answered without a store write,
// also by a fabric that has just started; so a replica keeps answering its
// VMs while etcd is out of reach. A scope that enables needs the write and
// gets an error, not a hang.
func TestRequestsNeedNoWrite(t *testing.T) {
	h := mustOpenHarness(t, Config{})
	h.scope(forewarn.ScopeSpec{Name: "web"})
	h.scope(forewarn.ScopeSpec{Name: "db"})
	if err := h.f.Metadata().Enable(h.ctx, "web"); err != nil {
		t.Fatal(err)
	}
	f, err := New(h.ctx, Config{Store: unwritableStore{h.store}, Clock: h.clock})
	if err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(time.Hour)
	if err := f.Metadata().Enable(h.ctx, "web"); err != nil {
		t.Errorf("request of an enabled scope on a fresh fabric: %v", err)
	}
	if err := f.Metadata().Enable(h.ctx, "db"); err == nil {
		t.Error("a scope enabled without storing it")
	}
}
