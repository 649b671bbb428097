package etcd_test

import (
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/etcd"
	"github.com/forewarn/forewarn/fabric"
)

// TestRecreatedScopeAcrossReplicas enables a scope through replica A's
// endpoint, then deletes and creates it again through B: A, which may see
// the deletion and the creation as one change, must not take the new scope
// for the old one. Its VM's next requests enable it, and its events get
// notice.
func TestRecreatedScopeAcrossReplicas(t *testing.T) {
	prefix := etcd.NewTestPrefix()
	clock := clockwork.NewFakeClockAt(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	a := startReplicaWith(t, prefix, fabric.Config{Clock: clock})
	b := startReplicaWith(t, prefix, fabric.Config{Clock: clock})
	ctx := t.Context()
	const addr = "10.1.0.9"
	create := func() {
		t.Helper()
		if _, err := b.fab.CreateScope(ctx, forewarn.ScopeSpec{Name: "s1"}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.fab.CreateVM(ctx, forewarn.VMSpec{Name: "a1", Scope: "s1", Addresses: []string{addr}}); err != nil {
			t.Fatal(err)
		}
	}
	create()
	a.awaitDocument(t, addr, func(d document) bool { return d.DocumentIncarnation > 0 })
	if s, err := b.fab.Scope(ctx, "s1"); err != nil || s.EnabledAt.IsZero() {
		t.Fatalf("s1 after its VM asked A: %+v, %v", s, err)
	}
	if err := b.fab.DeleteVM(ctx, "a1"); err != nil {
		t.Fatal(err)
	}
	if err := b.fab.DeleteScope(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	create()
	created, err := b.fab.Scope(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	// A serves the new scope (its incarnation goes on from the old one's),
	// then its VM asks again.
	a.awaitDocument(t, addr, func(d document) bool { return d.DocumentIncarnation >= created.Incarnation })
	a.document(t, addr)
	if s, err := a.fab.Scope(ctx, "s1"); err != nil || !s.Enabled || s.LastSeen.Before(s.CreatedAt) {
		t.Errorf("the new s1 on A after its VM asked: %+v, %v", s, err)
	}
	e, err := b.fab.Operate(ctx, "a1", forewarn.OpRestart)
	if err != nil || e.Status != forewarn.Scheduled {
		t.Errorf("restart in the new s1 = %+v, %v; want a Scheduled event with notice", e, err)
	}
}
