package main

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	// 1..100 ms, shuffled: summarize sorts.
	ds := make([]time.Duration, 100)
	for i := range ds {
		ds[i] = time.Duration(i+1) * time.Millisecond
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(ds), func(i, j int) { ds[i], ds[j] = ds[j], ds[i] })
	got := summarize(ds)
	if got != (latency{Count: 100, P50: 50, P99: 99, Max: 100}) {
		t.Errorf("1..100 ms: got %+v", got)
	}
	tests := []struct {
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{nil, 99, 0},
		{[]time.Duration{7}, 50, 7},
		{[]time.Duration{7}, 99, 7},
		{[]time.Duration{1, 2}, 50, 1}, // nearest rank: ceil(0.5*2) = 1
		{[]time.Duration{1, 2}, 51, 2}, // ceil(1.02) = 2
		{[]time.Duration{1, 2, 3}, 99, 3},
		{[]time.Duration{1, 2, 3}, 0, 1}, // rank at least 1
	}
	for _, tt := range tests {
		if got := percentile(tt.sorted, tt.p); got != tt.want {
			t.Errorf("percentile(%v, %g) = %v, want %v", tt.sorted, tt.p, got, tt.want)
		}
	}
	// 10,000 values: p99 is the 9,900th.
	big := make([]time.Duration, 10000)
	for i := range big {
		big[i] = time.Duration(i + 1)
	}
	if got := percentile(big, 99); got != 9900 {
		t.Errorf("p99 of 1..10000 = %d, want 9900", got)
	}
}

func TestLatencyString(t *testing.T) {
	l := summarize([]time.Duration{410 * time.Microsecond, 2900 * time.Microsecond, 14100 * time.Microsecond})
	if got, want := l.String(), "p50 2.90 ms, p99 14.1 ms, max 14.1 ms"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := summarize(nil).String(); got != "none" {
		t.Errorf("no values: %q", got)
	}
}
