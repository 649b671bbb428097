package forewarntest

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/forewarn/forewarn/fabric"
)

// scheduler runs the control plane's scheduler (fabric.Tick) under the
// fake clock, one run at a time: after each request, and at each deadline
// Advance passes.
type scheduler struct {
	clock *clockwork.FakeClock
	fab   *fabric.Fabric
	mu    sync.Mutex
}

// maxTicks bounds the Ticks of one settling: a campaign over many scopes
// takes a Tick a batch, far fewer than this.
const maxTicks = 10_000

// settle ticks until nothing is due now, and returns the next deadline, or
// the zero time if nothing is pending. s.mu must be held.
func (s *scheduler) settle(ctx context.Context) (time.Time, error) {
	for range maxTicks {
		next, err := s.fab.Tick(ctx)
		if err != nil {
			return time.Time{}, fmt.Errorf("scheduler: %w", err)
		}
		if next.IsZero() || next.After(s.clock.Now()) {
			return next, nil
		}
	}
	return time.Time{}, fmt.Errorf("scheduler: still has work due after %d runs", maxTicks)
}

// advance moves the clock d on, stopping at each deadline on the way to
// run what is due then: an event starts at its NotBefore, and its impact
// ends at the time it says, not at the end of d.
func (s *scheduler) advance(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	end := s.clock.Now().Add(d)
	for {
		next, err := s.settle(ctx)
		if err != nil {
			return err
		}
		if next.IsZero() || next.After(end) {
			break
		}
		s.clock.Advance(next.Sub(s.clock.Now()))
	}
	s.clock.Advance(end.Sub(s.clock.Now()))
	_, err := s.settle(ctx)
	return err
}

// Advance moves the clock d on. With the fake clock it returns once the
// state is what d makes it: events whose NotBefore passed have started (at
// their NotBefore), impacts that ended have ended, campaigns have moved on.
// With the real clock (WithTimeScale) it waits d divided by the scale.
func (s *Server) Advance(d time.Duration) {
	s.tb.Helper()
	if d < 0 {
		s.tb.Fatalf("forewarntest: Advance(%v): the clock does not go back", d)
	}
	if s.sched == nil {
		time.Sleep(time.Duration(float64(d) / s.scale))
		return
	}
	if err := s.sched.advance(s.ctx, d); err != nil {
		s.tb.Fatalf("forewarntest: Advance(%v): %v", d, err)
	}
}

// settle runs what is due now, with the fake clock.
func (s *Server) settle() error {
	if s.sched == nil {
		return nil
	}
	s.sched.mu.Lock()
	defer s.sched.mu.Unlock()
	_, err := s.sched.settle(s.ctx)
	return err
}

// settling runs the scheduler after each request, before the answer goes:
// what a request changed has taken effect when it returns (an event a VM
// or the admin approves has started), as it would a moment later in serve.
type settling struct {
	h http.Handler
	s *Server
}

func (h settling) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.h.ServeHTTP(w, r)
	if err := h.s.settle(); err != nil {
		h.s.tb.Errorf("forewarntest: after %s %s: %v", r.Method, r.URL.Path, err)
	}
}
