package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// runtimeSample is what one scrape of serve's /metrics says of its runtime.
type runtimeSample struct {
	goroutines float64
	heapInuse  float64 // bytes
	rss        float64 // bytes
	gcCycles   float64
}

// The metrics a runtimeSample reads: client_golang's Go and process
// collectors, which serve registers.
const (
	metricGoroutines = "go_goroutines"
	metricHeapInuse  = "go_memstats_heap_inuse_bytes"
	metricRSS        = "process_resident_memory_bytes"
	metricGCCycles   = "go_gc_duration_seconds_count"
)

// scrape GETs the Prometheus text at url (the admin API's /metrics, which
// needs no token) and reads the runtime's figures from it.
func scrape(ctx context.Context, c *http.Client, url string) (runtimeSample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return runtimeSample{}, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return runtimeSample{}, fmt.Errorf("GET %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return runtimeSample{}, fmt.Errorf("GET %s: %s", url, answerText(resp.StatusCode, body))
	}
	s, err := parseRuntime(resp.Body)
	if err != nil {
		return runtimeSample{}, fmt.Errorf("GET %s: %w", url, err)
	}
	return s, nil
}

// parseRuntime reads the figures of a runtimeSample from Prometheus text;
// every one must be there.
func parseRuntime(r io.Reader) (runtimeSample, error) {
	var s runtimeSample
	want := map[string]*float64{metricGoroutines: &s.goroutines, metricHeapInuse: &s.heapInuse,
		metricRSS: &s.rss, metricGCCycles: &s.gcCycles}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || want[f[0]] == nil {
			continue
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			return s, fmt.Errorf("metric %s: value %q is not a number", f[0], f[1])
		}
		*want[f[0]] = v
		delete(want, f[0])
	}
	if err := sc.Err(); err != nil {
		return s, err
	}
	for name := range want {
		return s, fmt.Errorf("no metric %s: is this serve's admin API?", name)
	}
	return s, nil
}

// settled is serve's runtime once a load has stopped: the least goroutines
// and heap in use of several samples, the resident set of the last.
type settled struct {
	Goroutines  int     `json:"goroutines"`
	HeapInuseMB float64 `json:"heap_inuse_mb"`
	RSSMB       float64 `json:"rss_mb"`
	Samples     int     `json:"samples"`
	// GCCycles is how many garbage collections ran while it sampled; with
	// none, the heap figure includes the load's garbage.
	GCCycles int     `json:"gc_cycles"`
	WaitedS  float64 `json:"waited_s"`
}

// settleOptions say how to sample a settled server.
type settleOptions struct {
	wait    time.Duration // before the first sample
	every   time.Duration // between samples
	samples int           // at least this many
	gcWait  time.Duration // sample on until a GC cycle has run, at most this long
}

// settle waits o.wait for the server to finish with the load, then
// samples its runtime every o.every: o.samples times, and on until a
// garbage collection has run since the first sample (the Go runtime runs
// one at least every two minutes), for at most o.gcWait. It forces nothing
// in the server: the minimum of the samples is the figure nearest a
// collected heap.
func settle(ctx context.Context, o settleOptions, c *http.Client, url string) (settled, error) {
	start := time.Now()
	if !sleepUntil(ctx, start.Add(o.wait)) {
		return settled{}, ctx.Err()
	}
	var first, low, last runtimeSample
	n := 0
	for ; ; n++ {
		s, err := scrape(ctx, c, url)
		if err != nil {
			return settled{}, err
		}
		if n == 0 {
			first, low = s, s
		}
		low.goroutines, low.heapInuse = min(low.goroutines, s.goroutines), min(low.heapInuse, s.heapInuse)
		last = s
		collected := last.gcCycles > first.gcCycles
		if n+1 >= o.samples && (collected || time.Since(start) >= o.wait+o.gcWait) {
			break
		}
		if !sleepUntil(ctx, time.Now().Add(o.every)) {
			return settled{}, ctx.Err()
		}
	}
	return settled{Goroutines: int(low.goroutines), HeapInuseMB: mb(low.heapInuse), RSSMB: mb(last.rss),
		Samples: n + 1, GCCycles: int(last.gcCycles - first.gcCycles), WaitedS: time.Since(start).Seconds()}, nil
}

// mb is bytes in MiB, to the hundredth.
func mb(bytes float64) float64 { return float64(int64(bytes/(1<<20)*100+0.5)) / 100 }
