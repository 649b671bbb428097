package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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
