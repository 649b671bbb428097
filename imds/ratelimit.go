package imds

import (
	"math"
	"sync"
	"time"

	"github.com/forewarn/forewarn"
	"golang.org/x/time/rate"
)

// pruneFloor is the number of buckets below which idle ones are kept.
const pruneFloor = 1024

// limiter holds a token bucket per caller (a VM, or an address on
// /metadata/versions). A nil limiter allows everything.
type limiter struct {
	limit rate.Limit
	burst int

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
	pruneAt int
}

// newLimiter returns a limiter of perSecond requests a second with a burst of
// twice that, or nil if perSecond is not positive.
func newLimiter(perSecond float64) *limiter {
	if perSecond <= 0 || math.IsNaN(perSecond) || math.IsInf(perSecond, 0) {
		return nil
	}
	return &limiter{
		limit:   rate.Limit(perSecond),
		burst:   max(1, int(math.Ceil(2*perSecond))),
		buckets: make(map[string]*rate.Limiter),
		pruneAt: pruneFloor,
	}
}

// allow takes a token from key's bucket. If there is none it returns false
// and the whole seconds until there will be one, at least 1.
func (l *limiter) allow(key string, now time.Time) (bool, int) {
	if l == nil {
		return true, 0
	}
	b := l.bucket(key, now)
	if b.AllowN(now, 1) {
		return true, 0
	}
	missing := 1 - b.TokensAt(now)
	secs := math.Ceil(missing / float64(l.limit))
	return false, max(1, int(min(secs, math.MaxInt32)))
}

// bucket returns key's bucket, creating it full. When the map has grown, it
// first drops the buckets that are full again: their callers are idle.
func (l *limiter) bucket(key string, now time.Time) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b, ok := l.buckets[key]; ok {
		return b
	}
	if len(l.buckets) >= l.pruneAt {
		for k, b := range l.buckets {
			if b.TokensAt(now) >= float64(l.burst) {
				delete(l.buckets, k)
			}
		}
		l.pruneAt = max(pruneFloor, 2*len(l.buckets))
	}
	b := rate.NewLimiter(l.limit, l.burst)
	l.buckets[key] = b
	return b
}

// vmRateKey is the rate-limit bucket name of a VM: its ID, so that a VM
// created again under a deleted one's name starts with a full bucket
// (DESIGN.md, invariant 8); its name, case-insensitively, if it has none.
func vmRateKey(vm *forewarn.VM) string {
	if vm.ID != "" {
		return "vm:" + vm.ID
	}
	return "vm:" + string(forewarn.KeyOf(vm.Name))
}
