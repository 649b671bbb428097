package sim

import (
	"fmt"
	"sync"

	"github.com/forewarn/forewarn"
)

// recorder is a Publisher that keeps the last snapshot of each scope, over
// every server of a run, and notes an incarnation that goes down.
type recorder struct {
	mu     sync.Mutex
	last   map[string]*forewarn.ScopeSnapshot
	faults []string
}

func newRecorder() *recorder { return &recorder{last: map[string]*forewarn.ScopeSnapshot{}} }

func (r *recorder) PublishScope(snap *forewarn.ScopeSnapshot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := key(snap.Scope.Name)
	if prev := r.last[k]; prev != nil && snap.Scope.Incarnation < prev.Scope.Incarnation {
		r.faults = append(r.faults, fmt.Sprintf("publisher: scope %s published at incarnation %d after %d",
			snap.Scope.Name, snap.Scope.Incarnation, prev.Scope.Incarnation))
	}
	r.last[k] = snap
}

func (r *recorder) RemoveScope(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.last, key(name))
}

func (r *recorder) PublishChaos([]*forewarn.ChaosRule) {}

// take returns the snapshots and the faults noted since the last take.
func (r *recorder) take() (map[string]*forewarn.ScopeSnapshot, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]*forewarn.ScopeSnapshot, len(r.last))
	for k, v := range r.last {
		out[k] = v
	}
	faults := r.faults
	r.faults = nil
	return out, faults
}

// fanout hands every publication to several publishers; the observer gets
// no chaos, so that what it answers is the document alone.
type fanout struct {
	all      []forewarn.Publisher
	observer forewarn.Publisher
}

func (f fanout) PublishScope(snap *forewarn.ScopeSnapshot) {
	for _, p := range f.all {
		p.PublishScope(snap)
	}
}

func (f fanout) RemoveScope(name string) {
	for _, p := range f.all {
		p.RemoveScope(name)
	}
}

func (f fanout) PublishChaos(rules []*forewarn.ChaosRule) {
	for _, p := range f.all {
		if p != f.observer {
			p.PublishChaos(rules)
		}
	}
}
