package memstore_test

import (
	"testing"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/memstore"
	"github.com/forewarn/forewarn/storetest"
)

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) forewarn.Store {
		s := memstore.New()
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// A View sees the state committed when it began, also while an Update is
// under way, which it does not wait for.
func TestViewDuringUpdate(t *testing.T) {
	s := memstore.New()
	ctx := t.Context()
	err := s.Update(ctx, func(tx forewarn.Tx) error {
		if err := tx.PutScope(&forewarn.Scope{Name: "web"}); err != nil {
			return err
		}
		return s.View(ctx, func(v forewarn.Tx) error {
			if _, err := v.Scope("web"); err == nil {
				t.Error("a View saw a write not yet committed")
			}
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(ctx, func(v forewarn.Tx) error {
		_, err := v.Scope("WEB")
		return err
	})
	if err != nil {
		t.Errorf("after the commit: %v", err)
	}
}

func TestClosed(t *testing.T) {
	s := memstore.New()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.View(t.Context(), func(forewarn.Tx) error { return nil }); err == nil {
		t.Error("View of a closed store succeeded")
	}
	if err := s.Update(t.Context(), func(forewarn.Tx) error { return nil }); err == nil {
		t.Error("Update of a closed store succeeded")
	}
}
