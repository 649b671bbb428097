package sim

import (
	"context"
	"strings"
	"time"
)

var debugShrink = false

// class is what a failure is about, for the shrinker to keep: the words of
// its message before the first colon, without names.
func class(f *Failure) string {
	msg := f.Msg
	if i := strings.IndexAny(msg, ":("); i >= 0 {
		msg = msg[:i]
	}
	fields := strings.Fields(msg)
	if len(fields) > 2 {
		fields = fields[:2]
	}
	return strings.Join(fields, " ")
}

// Shrink drops operations from a failing program while it still fails the
// same way (delta debugging), within budget of real time, and returns the
// shortest program found with its failure.
func Shrink(ctx context.Context, p Program, f *Failure, opts Options, budget time.Duration) (Program, *Failure) {
	deadline := time.Now().Add(budget)
	defer func(d time.Duration) { settleTimeout = d }(settleTimeout)
	settleTimeout = 300 * time.Millisecond
	want := class(f)
	best, bestF := p, f
	best.Ops = best.Ops[:f.Step+1]
	try := func(ops []Op) bool {
		if time.Now().After(deadline) {
			return false
		}
		cand := Program{Seed: p.Seed, Conf: p.Conf, Ops: ops}
		t0 := time.Now()
		cf, _ := Run(ctx, cand, opts)
		if debugShrink {
			println("shrink", len(ops), time.Since(t0).String(), cf != nil && class(cf) == want, func() string {
				if cf == nil {
					return "pass"
				}
				return cf.Msg
			}())
		}
		if cf == nil || class(cf) != want || cf.Step < 0 {
			return false
		}
		cand.Ops = cand.Ops[:cf.Step+1]
		best, bestF = cand, cf
		return true
	}
	n := 2
	for len(best.Ops) >= 2 && time.Now().Before(deadline) {
		ops := best.Ops
		chunk := (len(ops) + n - 1) / n
		reduced := false
		for i := 0; i < len(ops); i += chunk {
			cand := append(append([]Op(nil), ops[:i]...), ops[min(i+chunk, len(ops)):]...)
			if len(cand) > 0 && try(cand) {
				n = max(n-1, 2)
				reduced = true
				break
			}
		}
		if !reduced {
			if n >= len(ops) {
				break
			}
			n = min(2*n, len(ops))
		}
	}
	return best, bestF
}
