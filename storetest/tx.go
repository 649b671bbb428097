package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

var txTests = []testCase{
	{"Tx/CommitVisible", testCommitVisible},
	{"Tx/RollbackOnError", testRollbackOnError},
	{"Tx/ReadsOwnWrites", testReadsOwnWrites},
	{"Tx/ScansOwnWrites", testScansOwnWrites},
	{"Tx/ViewCannotWrite", testViewCannotWrite},
	{"Tx/CancelledContext", testCancelledContext},
	{"Tx/ConcurrentUpdates", testConcurrentUpdates},
	{"Tx/Copies", testCopies},
	{"Tx/TimesRoundTrip", testTimesRoundTrip},
}

func testCommitVisible(t *testing.T, s forewarn.Store) {
	scope, vm, event := newScope("web"), newVM("web-0", "web"), newEvent(eventA, "web", t0, "web-0")
	update(t, s, func(tx forewarn.Tx) error {
		for _, r := range []any{scope, vm, event} {
			if err := putRecord(tx, r); err != nil {
				return err
			}
		}
		if err := tx.AppendHistory(historyEvent(1), 10); err != nil {
			return err
		}
		return tx.PutMeta("k", []byte("v"))
	})
	assertState(t, s, state{
		scopes: []*forewarn.Scope{scope}, vms: []*forewarn.VM{vm}, events: []*forewarn.Event{event},
		history: []*forewarn.Event{historyEvent(1)}, meta: "v",
	})
}

// state is everything a test wrote, to compare with what a store holds.
type state struct {
	scopes  []*forewarn.Scope
	vms     []*forewarn.VM
	events  []*forewarn.Event
	history []*forewarn.Event
	meta    string // of key "k"
}

// assertState fails the test unless s holds exactly want.
func assertState(t *testing.T, s forewarn.Store, want state) {
	t.Helper()
	var got state
	err := s.View(t.Context(), func(tx forewarn.Tx) error {
		var err1, err2, err3, err4, err5 error
		var meta []byte
		got.scopes, err1 = tx.Scopes()
		got.vms, err2 = tx.VMs("")
		got.events, err3 = tx.Events("")
		got.history, err4 = tx.History(0)
		meta, err5 = tx.Meta("k")
		got.meta = string(meta)
		return errors.Join(err1, err2, err3, err4, err5)
	})
	if err != nil {
		t.Fatalf("View: %v", err)
	}
	assertEqual(t, "scopes", got.scopes, nilIfEmpty(want.scopes, got.scopes))
	assertEqual(t, "VMs", got.vms, nilIfEmpty(want.vms, got.vms))
	assertEqual(t, "events", got.events, nilIfEmpty(want.events, got.events))
	assertEqual(t, "history", got.history, nilIfEmpty(want.history, got.history))
	assertEqual(t, "meta", got.meta, want.meta)
}

// nilIfEmpty returns want, or got if both are empty, so that an empty list
// matches whether a store returns nil or an empty slice.
func nilIfEmpty[T any](want, got []T) []T {
	if len(want) == 0 && len(got) == 0 {
		return got
	}
	return want
}

var errBoom = forewarn.Errorf(forewarn.ErrConflict, "boom: the test failed this update")

func testRollbackOnError(t *testing.T, s forewarn.Store) {
	scope, vm, event := newScope("web"), newVM("web-0", "web"), newEvent(eventA, "web", t0, "web-0")
	put(t, s, scope, vm, event)
	putMeta(t, s, "k", []byte("before"))
	err := s.Update(t.Context(), func(tx forewarn.Tx) error {
		errs := []error{
			tx.PutScope(newScope("db")), tx.PutVM(newVM("db-0", "db")),
			tx.PutEvent(newEvent(eventB, "db", t0)), tx.AppendHistory(historyEvent(1), 10),
			tx.PutMeta("k", []byte("after")),
			tx.DeleteEvent(eventA), tx.DeleteVM("web-0"), tx.DeleteScope("web"),
		}
		if err := errors.Join(errs...); err != nil {
			return err
		}
		return errBoom
	})
	if !errors.Is(err, errBoom) || forewarn.ErrorMessage(err) != forewarn.ErrorMessage(errBoom) {
		t.Fatalf("Update returned %v, want fn's error %v", err, errBoom)
	}
	assertState(t, s, state{
		scopes: []*forewarn.Scope{scope}, vms: []*forewarn.VM{vm}, events: []*forewarn.Event{event}, meta: "before",
	})
}

// testScansOwnWrites checks that a listing in an Update merges the
// Update's writes into what was stored, in order, and stops where asked.
func testScansOwnWrites(t *testing.T, s forewarn.Store) {
	put(t, s, newVM("a", "x"), newVM("c", "x"), newVM("e", "y"))
	var all, x, firstTwo []string
	update(t, s, func(tx forewarn.Tx) error {
		errs := []error{tx.PutVM(newVM("b", "x")), tx.DeleteVM("c"), tx.PutVM(newVM("d", "x")),
			tx.PutVM(newVM("E", "x")), tx.PutVM(newVM("f", "y"))}
		if err := errors.Join(errs...); err != nil {
			return err
		}
		collect := func(into *[]string, limit int) func(*forewarn.VM) bool {
			return func(vm *forewarn.VM) bool {
				*into = append(*into, vm.Name)
				return len(*into) < limit
			}
		}
		return errors.Join(tx.ScanVMs("", "", collect(&all, 100)), tx.ScanVMs("X", "a", collect(&x, 100)),
			tx.ScanVMs("", "", collect(&firstTwo, 2)))
	})
	assertEqual(t, "ScanVMs(all) in tx", all, []string{"a", "b", "d", "E", "f"})
	assertEqual(t, "ScanVMs(x, after a) in tx", x, []string{"b", "d", "E"})
	assertEqual(t, "ScanVMs(all, 2) in tx", firstTwo, []string{"a", "b"})
}

// testReadsOwnWrites checks that an Update's fn sees its own writes.
func testReadsOwnWrites(t *testing.T, s forewarn.Store) {
	put(t, s, newScope("web"), newVM("web-0", "web"))
	var got state
	var gone error
	update(t, s, func(tx forewarn.Tx) error {
		errs := []error{
			tx.PutVM(newVM("Web-1", "web")), tx.DeleteVM("WEB-0"), tx.PutScope(newScope("db")),
			tx.PutEvent(newEvent(eventA, "web", t0, "web-1")), tx.AppendHistory(historyEvent(1), 10),
			tx.PutMeta("k", []byte("v")),
		}
		if err := errors.Join(errs...); err != nil {
			return err
		}
		_, gone = tx.VM("web-0")
		var err1, err2, err3, err4, err5 error
		var meta []byte
		got.scopes, err1 = tx.Scopes()
		got.vms, err2 = tx.VMs("WEB")
		got.events, err3 = tx.Events("web")
		got.history, err4 = tx.History(5)
		meta, err5 = tx.Meta("k")
		got.meta = string(meta)
		return errors.Join(err1, err2, err3, err4, err5)
	})
	assertNotFound(t, gone, "web-0")
	assertEqual(t, "scopes in tx", got.scopes, []*forewarn.Scope{newScope("db"), newScope("web")})
	assertEqual(t, "VMs in tx", got.vms, []*forewarn.VM{newVM("Web-1", "web")})
	assertEqual(t, "events in tx", got.events, []*forewarn.Event{newEvent(eventA, "web", t0, "web-1")})
	assertEqual(t, "history in tx", got.history, []*forewarn.Event{historyEvent(1)})
	assertEqual(t, "meta in tx", got.meta, "v")
}

func testViewCannotWrite(t *testing.T, s forewarn.Store) {
	writes := map[string]func(tx forewarn.Tx) error{
		"PutScope":      func(tx forewarn.Tx) error { return tx.PutScope(newScope("web")) },
		"PutVM":         func(tx forewarn.Tx) error { return tx.PutVM(newVM("web-0", "web")) },
		"PutEvent":      func(tx forewarn.Tx) error { return tx.PutEvent(newEvent(eventA, "web", t0)) },
		"AppendHistory": func(tx forewarn.Tx) error { return tx.AppendHistory(historyEvent(1), 10) },
		"PutMeta":       func(tx forewarn.Tx) error { return tx.PutMeta("k", []byte("v")) },
	}
	for name, write := range writes {
		var werr error
		_ = s.View(t.Context(), func(tx forewarn.Tx) error {
			werr = write(tx)
			return nil
		})
		if werr == nil {
			t.Errorf("%s in a View succeeded", name)
		}
	}
	assertState(t, s, state{})
}

func testCancelledContext(t *testing.T, s forewarn.Store) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	called := false
	fn := func(tx forewarn.Tx) error {
		called = true
		return tx.PutScope(newScope("web"))
	}
	if err := s.View(ctx, fn); !errors.Is(err, context.Canceled) {
		t.Errorf("View with a cancelled context returned %v", err)
	}
	if err := s.Update(ctx, fn); !errors.Is(err, context.Canceled) {
		t.Errorf("Update with a cancelled context returned %v", err)
	}
	if called {
		t.Error("fn was called with a cancelled context")
	}
	assertState(t, s, state{})
}

// testConcurrentUpdates increments a counter from many goroutines: Updates
// must not lose each other's writes.
func testConcurrentUpdates(t *testing.T, s forewarn.Store) {
	put(t, s, newScope("web"))
	const workers, rounds = 8, 5
	errs := make(chan error, workers*rounds)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range rounds {
				errs <- s.Update(t.Context(), func(tx forewarn.Tx) error {
					sc, err := tx.Scope("web")
					if err != nil {
						return err
					}
					sc.Incarnation++
					return tx.PutScope(sc)
				})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Update: %v", err)
		}
	}
	got := read(t, s, func(tx forewarn.Tx) (*forewarn.Scope, error) { return tx.Scope("web") })
	assertEqual(t, "incarnation", got.Incarnation, int64(1+workers*rounds))
}

// testCopies checks that neither the records put nor those returned are
// shared with the store.
func testCopies(t *testing.T, s forewarn.Store) {
	vm, event := newVM("web-0", "web"), newEvent(eventA, "web", t0, "web-0", "web-1")
	put(t, s, vm, event)
	vm.Addresses[0], vm.State = "192.0.2.1", forewarn.Deleting
	event.Resources[0] = "changed"

	gotVM := read(t, s, func(tx forewarn.Tx) (*forewarn.VM, error) { return tx.VM("web-0") })
	gotVM.Addresses[1], gotVM.Name = "192.0.2.2", "changed"
	vms := read(t, s, func(tx forewarn.Tx) ([]*forewarn.VM, error) { return tx.VMs("") })
	vms[0].Addresses[0] = "192.0.2.3"
	events := read(t, s, func(tx forewarn.Tx) ([]*forewarn.Event, error) { return tx.Events("") })
	events[0].Resources[1], events[0].Status = "changed", forewarn.Started

	assertState(t, s, state{
		vms:    []*forewarn.VM{newVM("web-0", "web")},
		events: []*forewarn.Event{newEvent(eventA, "web", t0, "web-0", "web-1")},
	})
}

// testTimesRoundTrip writes UTC times with nanoseconds, and zero times, and
// expects them back equal by ==: same instant, UTC, no monotonic reading.
func testTimesRoundTrip(t *testing.T, s forewarn.Store) {
	stamp := time.Unix(1_800_000_000, 123_456_789).UTC()
	scope := newScope("web")
	scope.EnabledAt, scope.LastSeen, scope.CreatedAt = time.Time{}, time.Time{}, stamp
	e := newEvent(eventA, "web", stamp.Add(time.Nanosecond))
	e.NotBefore, e.ApprovedAt, e.StartedAt, e.EndsAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	h := finished(newEvent(eventB, "web", stamp), forewarn.Completed)
	update(t, s, func(tx forewarn.Tx) error {
		return errors.Join(tx.PutScope(scope), tx.PutEvent(e), tx.AppendHistory(h, 10))
	})
	gotScope := read(t, s, func(tx forewarn.Tx) (*forewarn.Scope, error) { return tx.Scope("web") })
	gotEvent := read(t, s, func(tx forewarn.Tx) (*forewarn.Event, error) { return tx.Event(eventA) })
	gotHistory := read(t, s, func(tx forewarn.Tx) ([]*forewarn.Event, error) { return tx.History(1) })
	if gotScope.CreatedAt != stamp || !gotScope.EnabledAt.IsZero() || !gotScope.LastSeen.IsZero() {
		t.Errorf("scope times = %v, %v, %v; want %v and zero times",
			gotScope.CreatedAt, gotScope.EnabledAt, gotScope.LastSeen, stamp)
	}
	if gotEvent.CreatedAt != e.CreatedAt || gotEvent.CreatedAt.Location() != time.UTC {
		t.Errorf("event CreatedAt = %v (%v), want %v", gotEvent.CreatedAt, gotEvent.CreatedAt.Location(), e.CreatedAt)
	}
	assertEqual(t, "event", gotEvent, e)
	assertEqual(t, "history", gotHistory, []*forewarn.Event{h})
}
