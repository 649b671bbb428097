package etcd

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// nextChange returns the next change of a watch, scopes sorted, failing
// the test if none comes within a few seconds.
func nextChange(tb testing.TB, ch <-chan forewarn.Change) forewarn.Change {
	tb.Helper()
	select {
	case c, ok := <-ch:
		if !ok {
			tb.Fatal("watch channel closed")
		}
		slices.Sort(c.Scopes)
		return c
	case <-time.After(5 * time.Second): // a guard, not a wait: the change comes first
		tb.Fatal("no change reported within 5s")
	}
	return forewarn.Change{}
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
		want forewarn.Change
	}{
		{"create scope", func(tx forewarn.Tx) error { return tx.PutScope(&forewarn.Scope{Name: "Web", Incarnation: 1}) }, forewarn.Change{Scopes: []string{"Web"}}},
		{"create VM", func(tx forewarn.Tx) error { return tx.PutVM(&forewarn.VM{Name: "web-0", Scope: "Web"}) }, forewarn.Change{Scopes: []string{"Web"}}},
		{"move VM", func(tx forewarn.Tx) error {
			if err := tx.PutScope(&forewarn.Scope{Name: "db", Incarnation: 1}); err != nil {
				return err
			}
			return tx.PutVM(&forewarn.VM{Name: "web-0", Scope: "db"})
		}, forewarn.Change{Scopes: []string{"Web", "db"}}},
		{"event", func(tx forewarn.Tx) error { return tx.PutEvent(&forewarn.Event{ID: "e1", Scope: "db"}) }, forewarn.Change{Scopes: []string{"db"}}},
		{"delete event", func(tx forewarn.Tx) error { return tx.DeleteEvent("e1") }, forewarn.Change{Scopes: []string{"db"}}},
		{"setting", func(tx forewarn.Tx) error { return tx.PutMeta("k", []byte("v")) }, forewarn.Change{Meta: []string{"k"}}},
		{"campaign", func(tx forewarn.Tx) error {
			return tx.PutCampaign(&forewarn.Campaign{ID: "C1", State: forewarn.CampaignRunning})
		}, forewarn.Change{Campaigns: true, CampaignIDs: []string{"c1"}}},
		{"campaigns' progress", func(tx forewarn.Tx) error {
			err := tx.PutCampaign(&forewarn.Campaign{ID: "C1", State: forewarn.CampaignRunning,
				Scopes: []forewarn.ScopeProgress{{Scope: "Web"}, {Scope: "db"}}})
			if err == nil {
				err = tx.PutCampaign(&forewarn.Campaign{ID: "c2", Scopes: []forewarn.ScopeProgress{{Scope: "db"}}})
			}
			return err
		}, forewarn.Change{Campaigns: true, CampaignIDs: []string{"c1", "c2"}}},
		{"delete VM and scope", func(tx forewarn.Tx) error {
			if err := tx.DeleteVM("web-0"); err != nil {
				return err
			}
			return tx.DeleteScope("WEB")
		}, forewarn.Change{Scopes: []string{"Web", "db"}}},
	}
	for _, st := range steps {
		update(st.fn)
		got := nextChange(t, ch)
		if !reflect.DeepEqual(got, st.want) {
			t.Errorf("%s: watch sent %+v, want %+v", st.name, got, st.want)
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

// TestWatchLeavesOwnCommitsOut: what a store's own Updates wrote does not
// come back through its watch (their caller publishes them), what another
// store wrote does.
func TestWatchLeavesOwnCommitsOut(t *testing.T) {
	prefix := newPrefix()
	a, b := mustOpen(t, prefix), mustOpen(t, prefix)
	ch := a.Watch(t.Context())
	put := func(s *Store, scope string) {
		t.Helper()
		if err := s.Update(t.Context(), func(tx forewarn.Tx) error {
			return tx.PutScope(&forewarn.Scope{Name: scope, Incarnation: 1})
		}); err != nil {
			t.Fatal(err)
		}
	}
	put(a, "own")
	put(b, "other")
	if got := nextChange(t, ch); !reflect.DeepEqual(got, forewarn.Change{Scopes: []string{"other"}}) {
		t.Errorf("watch sent %+v, want only the other store's change", got)
	}
}
