package imds

import (
	"context"
	"sync"
	"time"
)

// enableContext is the context of a Metadata.Enable call: the request's
// context, ended early by Shutdown so that a first-call hold answers then.
//
// Joining two contexts takes context.WithCancel and context.AfterFunc, four
// heap allocations, on every request; yet Enable looks at its context only
// when it holds a first call, and otherwise returns at once. So the join is
// made on the first call of any method, and an enableContext whose methods
// were never called is recycled for a later request (forewarn.Metadata says
// Enable must not keep its context past its return). One that was used is
// canceled on release and never reused, as a plain joined context would be.
type enableContext struct {
	request context.Context // the request's context
	server  context.Context // ends at Shutdown

	mu     sync.Mutex
	joined context.Context // nil until first use
	cancel context.CancelFunc
}

var _ context.Context = (*enableContext)(nil)

// enableContext returns the context of an Enable call for a request whose
// context is ctx; release it once Enable has returned.
func (s *Server) enableContext(ctx context.Context) *enableContext {
	c, _ := s.enableContexts.Get().(*enableContext)
	if c == nil {
		c = new(enableContext)
	}
	c.request, c.server = ctx, s.done
	return c
}

// releaseEnableContext ends c once Enable has returned, and recycles it
// if nothing used it.
func (s *Server) releaseEnableContext(c *enableContext) {
	c.mu.Lock()
	used := c.joined != nil
	if used {
		c.cancel()
	}
	c.mu.Unlock()
	if !used {
		c.request, c.server = nil, nil
		s.enableContexts.Put(c)
	}
}

// join returns the joined context, making it on first use.
func (c *enableContext) join() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.joined == nil {
		joined, cancel := context.WithCancel(c.request)
		stop := context.AfterFunc(c.server, cancel)
		c.joined = joined
		c.cancel = func() {
			stop()
			cancel()
		}
	}
	return c.joined
}

// Deadline is the request's deadline.
func (c *enableContext) Deadline() (time.Time, bool) { return c.join().Deadline() }

// Done is closed when the request ends, at Shutdown, or on release.
func (c *enableContext) Done() <-chan struct{} { return c.join().Done() }

// Err says why Done was closed.
func (c *enableContext) Err() error { return c.join().Err() }

// Value is the request context's value for key.
func (c *enableContext) Value(key any) any { return c.join().Value(key) }
