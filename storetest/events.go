package storetest

import (
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

var eventTests = []testCase{
	{"Event/PutGet", testEventPutGet},
	{"Event/NotFound", testEventNotFound},
	{"Event/Delete", testEventDelete},
	{"Event/ByScope", testEventsByScope},
	{"Event/Invalid", testEventInvalid},
	{"Event/MovesScope", testEventMovesScope},
}

const (
	eventA = "602d9444-d2cd-49c7-8624-8643e7171297"
	eventB = "f020ba2e-3bc0-4c40-a10b-86575a9eabd5"
)

func testEventPutGet(t *testing.T, s forewarn.Store) {
	want := newEvent(eventA, "Web", t0, "web-0", "Web-1")
	put(t, s, want)
	for _, id := range []string{eventA, "602D9444-D2CD-49C7-8624-8643E7171297"} {
		got := read(t, s, func(tx forewarn.Tx) (*forewarn.Event, error) { return tx.Event(id) })
		assertEqual(t, "Event("+id+")", got, want)
	}
	want.Status = forewarn.Started
	want.NotBefore = time.Time{}
	put(t, s, want)
	got := read(t, s, func(tx forewarn.Tx) ([]*forewarn.Event, error) { return tx.Events("") })
	assertEqual(t, "Events(\"\") after update", got, []*forewarn.Event{want})
}

func testEventNotFound(t *testing.T, s forewarn.Store) {
	put(t, s, newEvent(eventB, "web", t0))
	err := viewErr(t, s, func(tx forewarn.Tx) error {
		_, err := tx.Event(eventA)
		return err
	})
	assertNotFound(t, err, eventA)
}

func testEventDelete(t *testing.T, s forewarn.Store) {
	put(t, s, newEvent(eventA, "web", t0), newEvent(eventB, "web", t0))
	update(t, s, func(tx forewarn.Tx) error { return tx.DeleteEvent(eventA) })
	err := viewErr(t, s, func(tx forewarn.Tx) error {
		_, err := tx.Event(eventA)
		return err
	})
	assertNotFound(t, err, eventA)
	err = s.Update(t.Context(), func(tx forewarn.Tx) error { return tx.DeleteEvent(eventA) })
	assertNotFound(t, err, eventA)
	got := read(t, s, func(tx forewarn.Tx) ([]*forewarn.Event, error) { return tx.Events("web") })
	assertEqual(t, "Events(web) after delete", got, []*forewarn.Event{newEvent(eventB, "web", t0)})
}

// testEventsByScope puts events in an order that is neither that of their
// times nor of their ids.
func testEventsByScope(t *testing.T, s forewarn.Store) {
	put(t, s,
		newEvent("c-late", "Web", at(time.Hour)),
		newEvent("b-tie", "web", at(time.Minute)),
		newEvent("z-db", "db", at(-time.Hour)),
		newEvent("a-tie", "WEB", at(time.Minute)),
		newEvent("d-first", "web", at(-time.Nanosecond)),
		newEvent("e-other", "webs", t0))
	ids := func(scope string) []string {
		events := read(t, s, func(tx forewarn.Tx) ([]*forewarn.Event, error) { return tx.Events(scope) })
		return names(events, func(e *forewarn.Event) string { return e.ID })
	}
	web := []string{"d-first", "a-tie", "b-tie", "c-late"}
	assertEqual(t, "Events(web)", ids("web"), web)
	assertEqual(t, "Events(Web)", ids("Web"), web)
	assertEqual(t, "Events(DB)", ids("DB"), []string{"z-db"})
	assertEqual(t, "Events(\"\")", ids(""), []string{"z-db", "d-first", "e-other", "a-tie", "b-tie", "c-late"})
	assertEqual(t, "Events(none)", len(ids("none")), 0)
}

func testEventInvalid(t *testing.T, s forewarn.Store) {
	for _, e := range []*forewarn.Event{nil, {Scope: "web"}} {
		err := s.Update(t.Context(), func(tx forewarn.Tx) error { return tx.PutEvent(e) })
		assertKind(t, err, forewarn.ErrInvalid)
	}
}

// testEventMovesScope checks that an event written into another scope, or
// deleted, leaves the listing of its old scope.
func testEventMovesScope(t *testing.T, s forewarn.Store) {
	put(t, s, newEvent(eventA, "web", t0, "web-0"), newEvent(eventB, "web", t0.Add(time.Second), "web-1"))
	put(t, s, newEvent(eventA, "DB", t0, "db-0"))
	ids := func(scope string) []string {
		events := read(t, s, func(tx forewarn.Tx) ([]*forewarn.Event, error) { return tx.Events(scope) })
		return names(events, func(e *forewarn.Event) string { return e.ID })
	}
	assertEqual(t, "Events(web) after the move", ids("web"), []string{eventB})
	assertEqual(t, "Events(db) after the move", ids("db"), []string{eventA})
	update(t, s, func(tx forewarn.Tx) error { return tx.DeleteEvent(eventA) })
	assertEqual(t, "Events(db) after delete", len(ids("db")), 0)
}
