package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

var historyTests = []testCase{
	{"History/Empty", testHistoryEmpty},
	{"History/KeepNewest", testHistoryKeep},
	{"History/Limit", testHistoryLimit},
	{"History/InvalidKeep", testHistoryInvalidKeep},
}

// historyEvent returns the i-th finished event of a history.
func historyEvent(i int) *forewarn.Event {
	e := newEvent(fmt.Sprintf("event-%02d", i), "web", at(time.Duration(i)*time.Minute), "web-0")
	if i%2 == 0 {
		return finished(e, forewarn.Cancelled)
	}
	return finished(e, forewarn.Completed)
}

// appendHistory appends events first..last, one Update each.
func appendHistory(t *testing.T, s forewarn.Store, first, last, keep int) {
	t.Helper()
	for i := first; i <= last; i++ {
		update(t, s, func(tx forewarn.Tx) error { return tx.AppendHistory(historyEvent(i), keep) })
	}
}

// history returns History(limit) as event ids.
func history(t *testing.T, s forewarn.Store, limit int) []string {
	t.Helper()
	events := read(t, s, func(tx forewarn.Tx) ([]*forewarn.Event, error) { return tx.History(limit) })
	return names(events, func(e *forewarn.Event) string { return e.ID })
}

func testHistoryEmpty(t *testing.T, s forewarn.Store) {
	assertEqual(t, "History(10) of an empty store", len(history(t, s, 10)), 0)
}

func testHistoryKeep(t *testing.T, s forewarn.Store) {
	appendHistory(t, s, 1, 5, 3)
	assertEqual(t, "History(10) keeping 3", history(t, s, 10), []string{"event-05", "event-04", "event-03"})
	got := read(t, s, func(tx forewarn.Tx) ([]*forewarn.Event, error) { return tx.History(1) })
	assertEqual(t, "History(1)", got, []*forewarn.Event{historyEvent(5)})

	// Several appends in one Update, with a larger keep.
	update(t, s, func(tx forewarn.Tx) error {
		for i := 6; i <= 9; i++ {
			if err := tx.AppendHistory(historyEvent(i), 5); err != nil {
				return err
			}
		}
		return nil
	})
	assertEqual(t, "History(10) keeping 5", history(t, s, 10),
		[]string{"event-09", "event-08", "event-07", "event-06", "event-05"})

	appendHistory(t, s, 10, 10, 1)
	assertEqual(t, "History(10) keeping 1", history(t, s, 10), []string{"event-10"})
}

func testHistoryLimit(t *testing.T, s forewarn.Store) {
	appendHistory(t, s, 1, 4, 100)
	assertEqual(t, "History(2)", history(t, s, 2), []string{"event-04", "event-03"})
	all := []string{"event-04", "event-03", "event-02", "event-01"}
	assertEqual(t, "History(4)", history(t, s, 4), all)
	assertEqual(t, "History(0)", history(t, s, 0), all)
	assertEqual(t, "History(-1)", history(t, s, -1), all)
}

func testHistoryInvalidKeep(t *testing.T, s forewarn.Store) {
	for _, keep := range []int{0, -1} {
		err := s.Update(t.Context(), func(tx forewarn.Tx) error { return tx.AppendHistory(historyEvent(1), keep) })
		assertKind(t, err, forewarn.ErrInvalid)
	}
	err := s.Update(t.Context(), func(tx forewarn.Tx) error { return tx.AppendHistory(nil, 10) })
	assertKind(t, err, forewarn.ErrInvalid)
	assertEqual(t, "History(0) after invalid appends", len(history(t, s, 0)), 0)
}
