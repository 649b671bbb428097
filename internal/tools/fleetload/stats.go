package main

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// latency is the distribution of some durations, in milliseconds for
// JSON.
type latency struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
}

// summarize sorts ds and returns their count, median, 99th percentile and
// maximum.
func summarize(ds []time.Duration) latency {
	slices.Sort(ds)
	return latency{
		Count: len(ds),
		P50:   ms(percentile(ds, 50)),
		P99:   ms(percentile(ds, 99)),
		Max:   ms(percentile(ds, 100)),
	}
}

// percentile returns the nearest-rank p-th percentile (0 < p <= 100) of
// sorted: the smallest value that at least p percent of them do not
// exceed. It is 0 for none.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

// ms is d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}

// String is the summary's line: "p50 0.41 ms, p99 2.9 ms, max 14 ms".
func (l latency) String() string {
	if l.Count == 0 {
		return "none"
	}
	return fmt.Sprintf("p50 %s ms, p99 %s ms, max %s ms", num(l.P50), num(l.P99), num(l.Max))
}

// num prints a figure with 3 significant digits, at most 3 decimals.
func num(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	case v >= 1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}
