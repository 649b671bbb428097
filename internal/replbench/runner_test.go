package replbench

import (
	"context"
	"errors"
	"sync"
	"testing"
)

// looper is what a run needs of a *testing.B; the tests of the harness
// pass a fixed count.
type looper interface {
	Loop() bool
	StartTimer()
	StopTimer()
}

// rounds runs one operation per b.Loop iteration, handed to the workers in
// turn, in rounds of at most one operation per VM of the fleet. Between two
// rounds, with the timer stopped, it waits for the operations handed out
// and calls between, which puts the VMs back as they were (cancels their
// events, say) and prepares the next round: so each operation finds its VM
// free, and the fleet's state stays the same however long the benchmark
// runs. The operations still running when b.Loop ends are waited for with
// the timer on.
type rounds struct {
	fleet *fleet
	// between readies every VM for a round; used is the number of
	// operations of the previous round, 0 before the first. It may be nil.
	between func(ctx context.Context, used int) error
	// do runs the operation on VM vm as worker w.
	do func(ctx context.Context, w, vm int) error
}

// run runs operations until lp.Loop ends and returns how many it ran. An
// operation that fails fails the test.
func (rs rounds) run(tb testing.TB, lp looper) int {
	tb.Helper()
	ctx := tb.Context()
	p := startPool(ctx, rs.do)
	n, next := 0, rs.fleet.size()
	var err error
	for lp.Loop() {
		if next == rs.fleet.size() {
			lp.StopTimer()
			if err = p.wait(); err == nil && rs.between != nil {
				err = rs.between(ctx, min(n, rs.fleet.size()))
			}
			lp.StartTimer()
			next = 0
		}
		if err != nil {
			break
		}
		p.hand(rs.fleet.job(next))
		next++
		n++
	}
	lp.StartTimer()
	if werr := p.wait(); err == nil { // else err holds the failures already
		err = werr
	}
	lp.StopTimer()
	p.stop()
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// pool is the workers of a run: each runs the operations handed to it, one
// at a time, in order.
type pool struct {
	jobs    [workers]chan int
	handed  sync.WaitGroup // operations handed out and not done
	running sync.WaitGroup

	mu       sync.Mutex
	failures []error
}

// startPool starts the workers.
func startPool(ctx context.Context, do func(ctx context.Context, w, vm int) error) *pool {
	p := &pool{}
	for w := range workers {
		p.jobs[w] = make(chan int, 1)
		p.running.Go(func() {
			for vm := range p.jobs[w] {
				p.record(do(ctx, w, vm))
				p.handed.Done()
			}
		})
	}
	return p
}

// hand gives worker w the operation on VM vm, waiting while the worker is
// busy and has one waiting already.
func (p *pool) hand(w, vm int) {
	p.handed.Add(1)
	p.jobs[w] <- vm
}

// record keeps the error of an operation, if any.
func (p *pool) record(err error) {
	if err != nil {
		p.mu.Lock()
		p.failures = append(p.failures, err)
		p.mu.Unlock()
	}
}

// wait waits for the operations handed out and returns the errors of every
// operation so far.
func (p *pool) wait() error {
	p.handed.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	return errors.Join(p.failures...)
}

// stop stops the workers, once they are idle.
func (p *pool) stop() {
	for w := range workers {
		close(p.jobs[w])
	}
	p.running.Wait()
}

// fixedLoop is a looper of a fixed number of iterations, for the tests.
type fixedLoop int

// Loop reports whether an iteration is left, and counts it.
func (c *fixedLoop) Loop() bool {
	*c--
	return *c >= 0
}

// StartTimer does nothing: there is no timer.
func (c *fixedLoop) StartTimer() {}

// StopTimer does nothing: there is no timer.
func (c *fixedLoop) StopTimer() {}
