package etcd_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/etcd"
)

// awaitLeader polls until the leader on the store's prefix is want,
// failing the test after five seconds.
func awaitLeader(tb testing.TB, s *etcd.Store, want string) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for got := etcd.Leader(tb, s); got != want; got = etcd.Leader(tb, s) {
		if time.Now().After(deadline) {
			tb.Fatalf("leader is %q after five seconds, want %q", got, want)
		}
		time.Sleep(10 * time.Millisecond) // polling etcd, changed by other goroutines
	}
}

// fencedPut stores a setting in a transaction checked by fence.
func fencedPut(ctx context.Context, s *etcd.Store, fence func(forewarn.Tx) error, key string) error {
	return s.Update(ctx, func(tx forewarn.Tx) error {
		if err := fence(tx); err != nil {
			return err
		}
		return tx.PutMeta(key, []byte("written"))
	})
}

// TestLeadFencesDeposedLeader has two replicas campaign: the first leads,
// and once its lease is revoked its fenced writes fail and the second
// leads.
func TestLeadFencesDeposedLeader(t *testing.T) {
	prefix := etcd.NewTestPrefix()
	one, two := etcd.MustOpen(t, prefix), etcd.MustOpen(t, prefix)
	ctx := t.Context()
	leading, fence, err := one.Lead(ctx, "one")
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		leading context.Context
		fence   func(forewarn.Tx) error
		err     error
	}
	second := make(chan result, 1)
	go func() {
		l, f, err := two.Lead(ctx, "two")
		second <- result{l, f, err}
	}()
	if err := fencedPut(ctx, one, fence, "by-leader"); err != nil {
		t.Fatalf("leader's fenced write: %v", err)
	}
	select {
	case <-second:
		t.Fatal("a second replica leads while the first does")
	default:
	}
	if got := etcd.RevokeLeader(t, one); got != "one" {
		t.Fatalf("revoked the lease of %q, want one", got)
	}
	err = fencedPut(ctx, one, fence, "by-deposed")
	if !errors.Is(err, forewarn.ErrConflict) {
		t.Fatalf("deposed leader's fenced write: %v, want ErrConflict", err)
	}
	if err := one.View(ctx, func(tx forewarn.Tx) error {
		v, err := tx.Meta("by-deposed")
		if v != nil {
			t.Errorf("the deposed leader's write was stored: %q", v)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-leading.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("leading context still open ten seconds after the lease was revoked")
	}
	var r result
	select {
	case r = <-second:
	case <-time.After(5 * time.Second):
		t.Fatal("the second replica does not lead five seconds after the first was deposed")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.leading.Err() != nil {
		t.Fatal("the new leader's context has already ended")
	}
	if err := fencedPut(ctx, two, r.fence, "by-new-leader"); err != nil {
		t.Fatalf("new leader's fenced write: %v", err)
	}
}

// TestFailoverStartsDueEvent has two fabrics on one prefix: once the
// leader's lease is revoked the other leads and starts an event when it
// is due.
func TestFailoverStartsDueEvent(t *testing.T) {
	prefix := etcd.NewTestPrefix()
	clock := clockwork.NewFakeClockAt(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	replicas := map[string]*replica{
		"a": startNamedReplica(t, prefix, clock, "a"),
		"b": startNamedReplica(t, prefix, clock, "b"),
	}
	ctx := t.Context()
	var first string
	deadline := time.Now().Add(5 * time.Second)
	for first = etcd.Leader(t, replicas["a"].store); first == ""; first = etcd.Leader(t, replicas["a"].store) {
		if time.Now().After(deadline) {
			t.Fatal("no leader after five seconds")
		}
		time.Sleep(10 * time.Millisecond) // polling etcd, changed by the fabrics
	}
	other := map[string]string{"a": "b", "b": "a"}[first]
	leader, follower := replicas[first], replicas[other]

	const addr = "10.1.0.7"
	if _, err := follower.fab.CreateScope(ctx, forewarn.ScopeSpec{Name: "db"}); err != nil {
		t.Fatal(err)
	}
	if _, err := follower.fab.CreateVM(ctx, forewarn.VMSpec{Name: "db-0", Scope: "db", Addresses: []string{addr}}); err != nil {
		t.Fatal(err)
	}
	e, err := follower.fab.Operate(ctx, "db-0", forewarn.OpRestart)
	if err != nil {
		t.Fatal(err)
	}
	leader.awaitDocument(t, addr, func(d document) bool {
		return len(d.Events) == 1 && d.Events[0].EventStatus == "Scheduled"
	})

	if got := etcd.RevokeLeader(t, leader.store); got != first {
		t.Fatalf("revoked the lease of %q, want %q", got, first)
	}
	awaitLeader(t, leader.store, other)
	clock.Advance(e.NotBefore.Sub(clock.Now()))
	for _, r := range []*replica{follower, leader} {
		doc := r.awaitDocument(t, addr, func(d document) bool {
			return len(d.Events) == 1 && d.Events[0].EventStatus == "Started"
		})
		if doc.Events[0].EventId != e.ID {
			t.Fatalf("started event %s, want %s", doc.Events[0].EventId, e.ID)
		}
	}
}
