package fabric

import (
	"container/heap"
	"slices"
	"time"

	"github.com/forewarn/forewarn"
)

// estimate returns when a campaign should finish if every event takes its
// full notice and impact, its scopes sharing ParallelScopes lanes; zero once
// it has ended.
func (f *Fabric) estimate(t *txn, c *forewarn.Campaign) time.Time {
	if c.Ended() {
		return time.Time{}
	}
	perDomain := f.scaled(noticeOf(c.Spec.Type, nil, time.Duration(c.Spec.Notice)) +
		forewarn.Impact(&forewarn.Event{Type: c.Spec.Type, DurationInSeconds: c.DurationInSeconds}))
	lanes := make(laneHeap, 0, min(c.Spec.ParallelScopes, len(c.Scopes)))
	var waiting []time.Duration
	for i := range c.Scopes {
		p := &c.Scopes[i]
		rest := time.Duration(p.UpdateDomains-p.Done) * perDomain
		switch {
		case p.Finished():
		case underWay(p):
			lanes = append(lanes, t.now.Add(rest))
		default:
			waiting = append(waiting, rest)
		}
	}
	for len(lanes) < min(c.Spec.ParallelScopes, len(c.Scopes)) {
		lanes = append(lanes, t.now)
	}
	if len(lanes) == 0 {
		return t.now
	}
	heap.Init(&lanes)
	for _, d := range waiting { // each waiting scope takes the lane that frees first
		lanes[0] = lanes[0].Add(d)
		heap.Fix(&lanes, 0)
	}
	return slices.MaxFunc(lanes, time.Time.Compare)
}

// laneHeap is the times the lanes of a campaign free up, earliest first.
type laneHeap []time.Time

func (h laneHeap) Len() int           { return len(h) }
func (h laneHeap) Less(i, j int) bool { return h[i].Before(h[j]) }
func (h laneHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *laneHeap) Push(x any)        { *h = append(*h, x.(time.Time)) }

func (h *laneHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
