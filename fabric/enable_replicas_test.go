package fabric

import (
	"context"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/memstore"
	"github.com/jonboulle/clockwork"
)

// recreatedThenFlushed has two replicas over one store: A served the old
// s1, then sees s1 deleted and created again as one change (as the etcd
// watch may report it), and flushes its enabling memory (if flush) before
// the new s1's VM asks through it. It returns the event of a restart then.
func recreatedThenFlushed(t *testing.T, flush bool) *forewarn.Event {
	b0 := memstore.New()
	defer b0.Close()
	clock := clockwork.NewFakeClockAt(t0)
	ctx := context.Background()
	a, err := New(ctx, Config{Store: b0, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(ctx, Config{Store: b0, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	create := func() {
		if _, err := b.CreateScope(ctx, forewarn.ScopeSpec{Name: "s1"}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.CreateVM(ctx, forewarn.VMSpec{Name: "a1", Scope: "s1"}); err != nil {
			t.Fatal(err)
		}
	}
	create()
	if err := a.refresh(ctx, forewarn.Change{Scopes: []string{"s1"}}); err != nil {
		t.Fatal(err)
	}
	if err := a.Metadata().Enable(ctx, "s1"); err != nil { // a1 asks through A
		t.Fatal(err)
	}
	if s, _ := b.Scope(ctx, "s1"); s.EnabledAt.IsZero() {
		t.Fatal("old s1 not enabled")
	}
	if err := b.DeleteVM(ctx, "a1"); err != nil {
		t.Fatal(err)
	}
	if err := b.DeleteScope(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	create()
	// A sees the deletion and the creation as one change.
	if err := a.refresh(ctx, forewarn.Change{Scopes: []string{"s1"}}); err != nil {
		t.Fatal(err)
	}
	if flush {
		clock.Advance(enableFlushEvery)
		if err := a.flushEnabling(ctx); err != nil { // A's once-a-minute flush
			t.Fatal(err)
		}
	}
	for range 3 { // a1 polls through A
		if err := a.Metadata().Enable(ctx, "s1"); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Second)
	}
	e, err := b.Operate(ctx, "a1", forewarn.OpRestart)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestRecreatedScopeAfterFlush: the new s1's requests through A enable it,
// whether or not A flushed its enabling memory in between (a flush stored
// "seen" for keys it did not write, and A then took the new scope for
// enabled).
func TestRecreatedScopeAfterFlush(t *testing.T) {
	for _, flush := range []bool{false, true} {
		if e := recreatedThenFlushed(t, flush); e.Status != forewarn.Scheduled {
			t.Errorf("flush %v: the restart in the new s1 = %s, want Scheduled with notice", flush, e.Status)
		}
	}
}

// TestStaleLearnIgnored: what a read of a deleted scope learns, coming
// after the snapshot of the scope created again under its name (a flush or
// an enable learns after its commit released the lock), is ignored.
func TestStaleLearnIgnored(t *testing.T) {
	e := newEnabling()
	old := &forewarn.Scope{Name: "s1", CreatedAt: t0, EnabledAt: t0, LastSeen: t0.Add(time.Minute)}
	recreated := &forewarn.Scope{Name: "s1", CreatedAt: t0.Add(time.Hour)}
	e.learnStored("s1", recreated)
	e.learnStored("s1", old)
	if _, ok := e.note("s1", t0.Add(time.Hour+time.Second)); ok {
		t.Error("a stale read of the deleted s1 makes the new one's requests skip enabling")
	}
}
