package sim

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/jonboulle/clockwork"
)

// actBound is the longest a run of the fake actuator lasts: exec's retry
// bound (its attempts, timeouts and backoff) as the simulation sees it.
const actBound = 20 * time.Minute

// errActuation is what a failed run returns.
var errActuation = errors.New("sim: the command failed all its attempts")

// runs is what outlives one server of a run: how many times each event
// and VM was actuated, and which succeeded.
type runs struct {
	seed     uint64
	attempts map[string]int
	ok       map[string]bool // runKey -> a run succeeded
}

func runKey(event, vm string) string { return key(event) + "/" + key(vm) }

// actuator is the fake of exec one server uses. Each call of Actuate
// blocks until the driver releases it (release), once the clock has passed
// the run's end, or until the server stops (its context ends).
type actuator struct {
	clock clockwork.Clock
	hist  *runs

	mu      sync.Mutex
	blocked map[string]*run
	twice   []string // runs started while another of the same key was blocked
	poke    chan struct{}
}

type run struct {
	key, event, vm string
	end            time.Time
	fail           bool
	done           chan error
}

var _ forewarn.Actuator = (*actuator)(nil)

// Name is what the events it starts record (Event.Actuator).
func (a *actuator) Name() string { return "exec" }

func newActuator(clock clockwork.Clock, hist *runs) *actuator {
	return &actuator{clock: clock, hist: hist, blocked: map[string]*run{}, poke: make(chan struct{}, 1)}
}

// outcome decides a run: how long it takes and whether it fails, from the
// seed, the event, the VM and the attempt, so that a replay decides alike.
func (h *runs) outcome(event, vm string, attempt int) (time.Duration, bool) {
	f := fnv.New64a()
	fmt.Fprintf(f, "%d/%s/%d", h.seed, runKey(event, vm), attempt)
	r := rand.New(rand.NewPCG(f.Sum64(), 7))
	switch p := r.IntN(100); {
	case p < 70: // succeeds
		return time.Second + time.Duration(r.Int64N(int64(10*time.Minute))), false
	case p < 88: // fails for good after its retries
		return time.Second + time.Duration(r.Int64N(int64(actBound-time.Second))), true
	default: // hangs until exec's timeout gives it up
		return actBound, true
	}
}

// Actuate blocks until the driver releases the run or ctx ends.
func (a *actuator) Actuate(ctx context.Context, e *forewarn.Event, vm *forewarn.VM) error {
	key := runKey(e.ID, vm.Name)
	a.mu.Lock()
	a.hist.attempts[key]++
	d, fail := a.hist.outcome(e.ID, vm.Name, a.hist.attempts[key])
	r := &run{key: key, event: e.ID, vm: vm.Name, end: a.clock.Now().Add(d), fail: fail, done: make(chan error, 1)}
	if a.blocked[key] != nil {
		a.twice = append(a.twice, key)
	}
	a.blocked[key] = r
	a.mu.Unlock()
	a.signal()
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		a.mu.Lock()
		if a.blocked[key] == r {
			delete(a.blocked, key)
		}
		a.mu.Unlock()
		a.signal()
		return ctx.Err()
	}
}

func (a *actuator) signal() {
	select {
	case a.poke <- struct{}{}:
	default:
	}
}

// runResult is a released run, as the model takes it.
type runResult struct {
	event, vm string
	fail      bool
}

// due returns the runs whose end has come, in a fixed order.
func (a *actuator) due(now time.Time) []*run {
	a.mu.Lock()
	defer a.mu.Unlock()
	var due []*run
	for _, r := range a.blocked {
		if !now.Before(r.end) {
			due = append(due, r)
		}
	}
	sort.Slice(due, func(i, j int) bool { return due[i].key < due[j].key })
	return due
}

// release ends one run and returns it as the model takes it.
func (a *actuator) release(r *run) runResult {
	a.mu.Lock()
	delete(a.blocked, r.key)
	if !r.fail {
		a.hist.ok[r.key] = true
	}
	a.mu.Unlock()
	if r.fail {
		r.done <- errActuation
	} else {
		r.done <- nil
	}
	return runResult{r.event, r.vm, r.fail}
}

// isBlocked reports whether a run of the event on the VM is under way.
func (a *actuator) isBlocked(event, vm string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.blocked[runKey(event, vm)] != nil
}

// pending returns how many runs are under way, and the keys of runs that
// were started twice at once.
func (a *actuator) pending() (int, []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.blocked), append([]string(nil), a.twice...)
}

// keys returns the runs under way, by runKey.
func (a *actuator) keys() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]string, 0, len(a.blocked))
	for k := range a.blocked {
		out = append(out, k)
	}
	return out
}

// count returns how many runs are under way.
func (a *actuator) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.blocked)
}
