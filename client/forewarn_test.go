package client_test

import (
	"context"
	"log/slog"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forewarn/forewarn/client"
)

// These tests run the client against the real forewarn server in process
// (server_test.go): store, control plane and metadata endpoint.

// apiVersions are the api-versions of /metadata/scheduledevents (SPEC.md 2).
var apiVersions = []string{"2017-03-01", "2017-08-01", "2017-11-01", "2019-01-01", "2019-04-01", "2019-08-01", "2020-07-01"}

func TestForewarnAPIVersions(t *testing.T) {
	for _, version := range apiVersions {
		t.Run(version, func(t *testing.T) {
			g := newGate()
			s := startServer(t, g, 600)
			ctx := testCtx(t)
			c := newClient(s, client.WithAPIVersion(version))
			doc, err := c.Get(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !doc.LongPoll || len(doc.Events) != 0 || doc.DocumentIncarnation < 1 {
				t.Fatalf("first document %+v", doc)
			}
			w := startWatch(t, c)
			w.next("the first document", noEvents)
			e := s.restartVM(ctx)
			d := w.next("the restart scheduled", hasEvent(e.ID, client.EventStatusScheduled))
			checkRestartEvent(t, version, d.Events[0])
			if err := c.Approve(ctx, e.ID); err != nil {
				t.Fatal(err)
			}
			w.next("the restart started", hasEvent(e.ID, client.EventStatusStarted))
			g.open(t)
			w.next("the restart completed", noEvents)
			checkOnce(t, w.stop(), doc.DocumentIncarnation)
		})
	}
}

// checkRestartEvent checks the fields of a scheduled restart of the host VM
// as api-version shows them.
func checkRestartEvent(tb testing.TB, version string, e client.Event) {
	tb.Helper()
	if e.EventType != client.EventTypeReboot || e.ResourceType != "VirtualMachine" ||
		!slices.Equal(e.Resources, []string{hostVM}) || e.NotBefore.IsZero() {
		tb.Errorf("event %+v", e)
	}
	if got, want := e.Description != "", version >= "2019-04-01"; got != want {
		tb.Errorf("Description %q at %s", e.Description, version)
	}
	if got, want := e.EventSource, ""; version >= "2019-08-01" {
		if got != client.EventSourceUser {
			tb.Errorf("EventSource %q at %s, want User", got, version)
		}
	} else if got != want {
		tb.Errorf("EventSource %q at %s, want none", got, version)
	}
}

// checkOnce checks that the incarnations delivered are first, first+1, ...
// with no gap and no repeat.
func checkOnce(tb testing.TB, seen []int, first int) {
	tb.Helper()
	for i, inc := range seen {
		if inc != first+i {
			tb.Fatalf("incarnations delivered %v, want %d, %d, ... with no gap or repeat", seen, first, first+1)
		}
	}
}

// cycle takes n restarts of the host VM through their life, each change
// made once Watch has delivered the one before: scheduled, approved and
// started, completed. The gate decides when each completes.
func cycle(tb testing.TB, s *server, g *gate, c *client.Client, w *watch, n int) {
	tb.Helper()
	ctx := testCtx(tb)
	for range n {
		e := s.restartVM(ctx)
		w.next("the restart scheduled", hasEvent(e.ID, client.EventStatusScheduled))
		if err := c.Approve(ctx, e.ID); err != nil {
			tb.Fatal(err)
		}
		w.next("the restart started", hasEvent(e.ID, client.EventStatusStarted))
		g.open(tb)
		w.next("the restart completed", noEvents)
	}
}

func TestForewarnWatchSeesEveryChangeOnce(t *testing.T) {
	for _, mode := range []struct {
		name string
		opts []client.Option
	}{
		{"long-poll", nil},
		{"polling", []client.Option{client.WithLongPollTimeout(0), client.WithPollInterval(20 * time.Millisecond)}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			g := newGate()
			s := startServer(t, g, 600)
			c := newClient(s, mode.opts...)
			w := startWatch(t, c)
			first := w.next("the first document", noEvents).DocumentIncarnation
			if first != 1 {
				t.Errorf("first incarnation %d, want 1", first)
			}
			const n = 4
			cycle(t, s, g, c, w, n)
			seen := w.stop()
			checkOnce(t, seen, first)
			if len(seen) != 1+3*n {
				t.Errorf("incarnations delivered %v, want %d of them", seen, 1+3*n)
			}
		})
	}
}

func TestForewarnSurvivesServerRestart(t *testing.T) {
	g := newGate()
	s := startServer(t, g, 600)
	c := newClient(s)
	w := startWatch(t, c)
	first := w.next("the first document", noEvents).DocumentIncarnation
	cycle(t, s, g, c, w, 1)

	s.restart() // Watch's long-poll is held meanwhile
	cycle(t, s, g, c, w, 1)
	doc, err := c.Get(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}

	s.restart() // and now with an event in flight
	e := s.restartVM(testCtx(t))
	w.next("the restart scheduled", hasEvent(e.ID, client.EventStatusScheduled))
	if err := c.Approve(testCtx(t), e.ID); err != nil {
		t.Fatal(err)
	}
	w.next("the restart started", hasEvent(e.ID, client.EventStatusStarted))
	g.open(t)
	w.next("the restart completed", noEvents)

	seen := w.stop()
	checkOnce(t, seen, first)
	if len(seen) != 1+3*3 || doc.DocumentIncarnation != first+6 {
		t.Errorf("incarnations delivered %v, Get after the first restart saw %d", seen, doc.DocumentIncarnation)
	}
}

func TestForewarnSurvivesChaos(t *testing.T) {
	for _, tc := range []struct{ status, gets, cycles int }{
		{500, 5, 2}, {410, 5, 2},
		{429, 2, 1}, // each 429 costs the second its Retry-After asks
	} {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			t.Parallel()
			g := newGate()
			// Real notice (15 minutes): with 429s, each answered with
			// Retry-After: 1, the scaled 1.5s would run out and start the
			// events before the test approves them.
			s := startServer(t, g, 1)
			retries := &warnCounter{}
			c := newClient(s, client.WithLogger(slog.New(retries)))
			ctx := testCtx(t)
			first, err := c.Get(ctx)
			if err != nil {
				t.Fatal(err)
			}
			s.chaos(ctx, tc.status, 0.5)
			for range tc.gets {
				doc, err := c.Get(ctx)
				if err != nil {
					t.Fatalf("Get under chaos: %v", err)
				}
				if doc.DocumentIncarnation != first.DocumentIncarnation {
					t.Fatalf("Get under chaos saw incarnation %d, want %d", doc.DocumentIncarnation, first.DocumentIncarnation)
				}
			}
			w := startWatch(t, c)
			w.next("the first document", noEvents)
			cycle(t, s, g, c, w, tc.cycles)
			seen := w.stop()
			checkOnce(t, seen, first.DocumentIncarnation)
			if len(seen) != 1+3*tc.cycles {
				t.Errorf("incarnations delivered %v, want %d of them", seen, 1+3*tc.cycles)
			}
			if retries.n.Load() == 0 {
				t.Error("no request was retried: the chaos rule hit nothing")
			}
		})
	}
}

// warnCounter is a slog.Handler that counts warnings: the client logs one
// at every retry.
type warnCounter struct{ n atomic.Int64 }

func (h *warnCounter) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h *warnCounter) Handle(context.Context, slog.Record) error {
	h.n.Add(1)
	return nil
}

func (h *warnCounter) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *warnCounter) WithGroup(string) slog.Handler      { return h }
