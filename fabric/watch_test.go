package fabric

import (
	"context"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/bolt"
)

// watchedStore is a bbolt store that reports the changes the test sends,
// as if another replica had made them.
type watchedStore struct {
	*bolt.Store
	changes chan forewarn.Change
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

// awaitPublished polls until ok holds of the recorder, failing after five
// seconds.
func awaitPublished(tb testing.TB, r *recorder, what string, ok func() bool) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			tb.Fatalf("%s: not published within five seconds", what)
		}
		time.Sleep(5 * time.Millisecond) // the fabric's follower publishes in its goroutine
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

	// Another writer: the first fabric on the same file.
	if _, err := h.f.CreateVM(h.ctx, forewarn.VMSpec{Name: "web-0", Scope: "web"}); err != nil {
		t.Fatal(err)
	}
	store.changes <- forewarn.Change{Scopes: []string{"web"}}
	awaitPublished(t, pub, "the new VM", func() bool { s := pub.snapshot("web"); return s != nil && len(s.VMs) == 1 })

	if _, err := h.f.AddChaos(h.ctx, forewarn.ChaosSpec{Status: 500, Fraction: 1, For: forewarn.Duration(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	store.changes <- forewarn.Change{Meta: []string{"enabling"}}
	store.changes <- forewarn.Change{Meta: []string{metaChaos}}
	awaitPublished(t, pub, "the chaos rule", func() bool {
		pub.mu.Lock()
		defer pub.mu.Unlock()
		return len(pub.chaos) == 1
	})

	if err := h.f.DeleteScope(h.ctx, "db"); err != nil {
		t.Fatal(err)
	}
	store.changes <- forewarn.Change{All: true}
	awaitPublished(t, pub, "the removal of db", func() bool { return pub.snapshot("db") == nil })
	if pub.snapshot("web") == nil {
		t.Error("web was removed too")
	}
}
