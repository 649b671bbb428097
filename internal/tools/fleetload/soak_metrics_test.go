package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// metricsText is Prometheus text with the runtime's figures.
func metricsText(goroutines, heap, rss, gc int) string {
	return fmt.Sprintf(`# HELP go_goroutines Number of goroutines that currently exist.
# TYPE go_goroutines gauge
go_goroutines %d
go_gc_duration_seconds{quantile="0.5"} 3.1e-05
go_gc_duration_seconds_sum 0.01
go_gc_duration_seconds_count %d
go_memstats_heap_inuse_bytes %e
process_resident_memory_bytes %e
`, goroutines, gc, float64(heap), float64(rss))
}

func TestParseRuntime(t *testing.T) {
	s, err := parseRuntime(strings.NewReader(metricsText(12, 5<<20, 30<<20, 7)))
	if err != nil || s != (runtimeSample{goroutines: 12, heapInuse: 5 << 20, rss: 30 << 20, gcCycles: 7}) {
		t.Errorf("%+v, %v", s, err)
	}
	if _, err := parseRuntime(strings.NewReader("go_goroutines 1\n")); err == nil || !strings.Contains(err.Error(), "no metric") {
		t.Errorf("missing metrics: %v", err)
	}
	if _, err := parseRuntime(strings.NewReader("go_goroutines x\n")); err == nil || !strings.Contains(err.Error(), `"x" is not a number`) {
		t.Errorf("bad value: %v", err)
	}
}

// TestSettle samples a server until a garbage collection has run, and
// takes the least goroutines and heap.
func TestSettle(t *testing.T) {
	samples := []string{
		metricsText(20, 9<<20, 30<<20, 5),
		metricsText(12, 8<<20, 31<<20, 5),
		metricsText(15, 7<<20, 32<<20, 5),
		metricsText(13, 3<<20, 33<<20, 6), // a collection ran
		metricsText(11, 2<<20, 34<<20, 6),
	}
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(samples[min(int(n.Add(1))-1, len(samples)-1)]))
	}))
	defer srv.Close()
	o := settleOptions{wait: 10 * time.Millisecond, every: time.Millisecond, samples: 2, gcWait: time.Minute}
	s, err := settle(t.Context(), o, srv.Client(), srv.URL)
	want := settled{Goroutines: 12, HeapInuseMB: 3, RSSMB: 33, Samples: 4, GCCycles: 1}
	if s.WaitedS < 0.01 {
		t.Errorf("waited %g s", s.WaitedS)
	}
	s.WaitedS = 0
	if err != nil || s != want {
		t.Errorf("got %+v, %v; want %+v", s, err, want)
	}
	n.Store(0)
	o.gcWait = 0 // no wait for a collection
	if s, err := settle(t.Context(), o, srv.Client(), srv.URL); err != nil || s.Samples != 2 || s.GCCycles != 0 || s.HeapInuseMB != 8 {
		t.Errorf("got %+v, %v", s, err)
	}
	srv.Close()
	if _, err := settle(t.Context(), o, srv.Client(), srv.URL); err == nil {
		t.Error("no error from a server gone")
	}
}

func TestGrowth(t *testing.T) {
	g := growth{goroutines: 50, goroutinesPct: 10, heapPct: 20, heapMB: 8}
	for _, c := range []struct {
		before, after settled
		limitG        int
		limitHeap     float64
		ok            bool
	}{
		{settled{Goroutines: 11, HeapInuseMB: 10}, settled{Goroutines: 61, HeapInuseMB: 20}, 61, 20, true},
		{settled{Goroutines: 11, HeapInuseMB: 10}, settled{Goroutines: 62, HeapInuseMB: 10}, 61, 20, false},
		{settled{Goroutines: 11, HeapInuseMB: 10}, settled{Goroutines: 11, HeapInuseMB: 20.01}, 61, 20, false},
		{settled{Goroutines: 2000, HeapInuseMB: 100}, settled{Goroutines: 2200, HeapInuseMB: 128}, 2200, 128, true},
	} {
		r := g.check(c.before, c.after)
		if r.GoroutinesLimit != c.limitG || r.HeapLimitMB != c.limitHeap || r.OK != c.ok {
			t.Errorf("%+v -> %+v: %+v", c.before, c.after, r)
		}
	}
}

// historyFleet is an admin API that answers the events in flight and the
// history it holds; the rest of fleetAPI is not used.
type historyFleet struct {
	fleetAPI
	inFlight, history []*forewarn.Event
	limits            []int
}

func (f *historyFleet) Events(context.Context, forewarn.EventQuery) ([]*forewarn.Event, string, error) {
	return f.inFlight, "", nil
}

func (f *historyFleet) History(_ context.Context, limit int) ([]*forewarn.Event, error) {
	f.limits = append(f.limits, limit)
	return f.history[:min(limit, len(f.history))], nil
}

// TestCollector: an event read in flight and then in the history is kept
// as the history has it; a history that may have ended more events since
// the last read than a read returns is an error.
func TestCollector(t *testing.T) {
	now := time.Now()
	f := &historyFleet{inFlight: []*forewarn.Event{{ID: "a", Status: forewarn.Scheduled}}}
	c := newCollector(f)
	if err := c.collect(t.Context()); err != nil || len(c.events) != 1 || !c.events["a"].InFlight() {
		t.Fatalf("%v, %v", err, c.events)
	}
	f.inFlight = []*forewarn.Event{{ID: "b", Status: forewarn.Scheduled, Campaign: "c"}}
	f.history = []*forewarn.Event{{ID: "a", Outcome: forewarn.Completed, EndedAt: now}}
	if err := c.collect(t.Context()); err != nil || len(c.events) != 3-1 || c.events["a"].InFlight() ||
		c.byCampaign()["c"] != 1 {
		t.Fatalf("%v, %v", err, c.events)
	}
	f.limits = nil
	for i := range maxHistory {
		f.history = append(f.history, &forewarn.Event{ID: fmt.Sprint(i), Outcome: forewarn.Completed, EndedAt: now.Add(time.Second)})
	}
	err := c.collect(t.Context())
	if !errors.Is(err, errHistoryOverflow) || fmt.Sprint(f.limits) != "[1000 10000]" {
		t.Errorf("%v, limits %v", err, f.limits)
	}
	f.history[maxHistory-1].EndedAt = now.Add(-time.Minute) // reaches back far enough
	if err := c.collect(t.Context()); err != nil || len(c.events) != 2+maxHistory-1 {
		t.Errorf("%v, %d events", err, len(c.events))
	}
}
