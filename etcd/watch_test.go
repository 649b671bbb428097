package etcd

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// nextChange returns the next batch of scope names of a watch, failing the
// test if none comes within a few seconds.
func nextChange(tb testing.TB, ch <-chan []string) []string {
	tb.Helper()
	select {
	case names, ok := <-ch:
		if !ok {
			tb.Fatal("watch channel closed")
		}
		return names
	case <-time.After(5 * time.Second): // a guard, not a wait: the change comes first
		tb.Fatal("no change reported within 5s")
	}
	return nil
}

func TestWatchSeesOtherWriter(t *testing.T) {
	prefix := newPrefix()
	a, b := mustOpen(t, prefix), mustOpen(t, prefix)
	ch := a.Watch(t.Context())
	update := func(fn func(forewarn.Tx) error) {
		t.Helper()
		if err := b.Update(t.Context(), fn); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name string
		fn   func(forewarn.Tx) error
		want []string
	}{
		{"create scope", func(tx forewarn.Tx) error { return tx.PutScope(&forewarn.Scope{Name: "Web", Incarnation: 1}) }, []string{"Web"}},
		{"create VM", func(tx forewarn.Tx) error { return tx.PutVM(&forewarn.VM{Name: "web-0", Scope: "Web"}) }, []string{"Web"}},
		{"move VM", func(tx forewarn.Tx) error {
			if err := tx.PutScope(&forewarn.Scope{Name: "db", Incarnation: 1}); err != nil {
				return err
			}
			return tx.PutVM(&forewarn.VM{Name: "web-0", Scope: "db"})
		}, []string{"Web", "db"}},
		{"event", func(tx forewarn.Tx) error { return tx.PutEvent(&forewarn.Event{ID: "e1", Scope: "db"}) }, []string{"db"}},
		{"delete event", func(tx forewarn.Tx) error { return tx.DeleteEvent("e1") }, []string{"db"}},
		{"meta only", func(tx forewarn.Tx) error { return tx.PutMeta("k", []byte("v")) }, nil},
		{"delete VM and scope", func(tx forewarn.Tx) error {
			if err := tx.DeleteVM("web-0"); err != nil {
				return err
			}
			return tx.DeleteScope("WEB")
		}, []string{"Web", "db"}},
	}
	for _, st := range steps {
		update(st.fn)
		if st.want == nil {
			continue // nothing is sent; the next step's batch must not contain it
		}
		got := nextChange(t, ch)
		slices.Sort(got)
		if !slices.Equal(got, st.want) {
			t.Errorf("%s: watch sent %q, want %q", st.name, got, st.want)
		}
	}
}

func TestWatchClosesWithContext(t *testing.T) {
	s := mustOpen(t, newPrefix())
	ctx, cancel := context.WithCancel(t.Context())
	ch := s.Watch(ctx)
	cancel()
	for range ch { // drains until closed; a hang fails by the test timeout
	}
}
