package imds

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// goneContext is the context of a request fasthttp carries: Done is closed
// when the client goes away. fasthttp does not watch a connection while
// its handler runs (net/http does, with a read in the background), so the
// first call of Done starts a watch: a goroutine that peeks at the socket
// (peekGone), taking no byte a pipelined request needs. Only requests
// that wait call Done (a long-poll held, a chaos delay, a first-call
// hold); the others pay nothing. stop ends the watch before the answer is
// written.
type goneContext struct {
	conn net.Conn

	mu      sync.Mutex
	done    chan struct{} // nil until Done is first called
	stopped chan struct{} // closed when the watch ends; nil if none ran
	// stopping is set by stop, under mu: a deadline then ends the watch.
	stopping bool
	gone     atomic.Bool
	// after holds the functions of AfterFunc not yet run or stopped.
	after map[*func()]bool
}

var _ context.Context = (*goneContext)(nil)

// reset readies g for a request on conn.
func (g *goneContext) reset(conn net.Conn) {
	g.conn, g.done, g.stopped, g.stopping, g.after = conn, nil, nil, false, nil
	g.gone.Store(false)
}

// Deadline reports none.
func (g *goneContext) Deadline() (time.Time, bool) { return time.Time{}, false }

// Value is nil: the context carries no values.
func (g *goneContext) Value(any) any { return nil }

// Err is context.Canceled once the client has gone away.
func (g *goneContext) Err() error {
	if g.gone.Load() {
		return context.Canceled
	}
	return nil
}

// Done is closed when the client goes away; the first call starts the
// watch.
func (g *goneContext) Done() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.start()
	return g.done
}

// AfterFunc runs f in its own goroutine once the client has gone, unless
// stop is called first, as context.AfterFunc does. The context package
// calls it to cancel the contexts derived from g (context.WithTimeout in
// Metadata.Approve, say) rather than start a goroutine that would call
// Done after the request has ended and g has been recycled.
func (g *goneContext) AfterFunc(f func()) (stop func() bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.start()
	if g.gone.Load() {
		go f()
		return func() bool { return false }
	}
	if g.after == nil {
		g.after = make(map[*func()]bool)
	}
	key := &f
	g.after[key] = true
	return func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		stopped := g.after[key]
		delete(g.after, key)
		return stopped
	}
}

// start starts the watch if it has not started. g.mu must be held.
func (g *goneContext) start() {
	if g.done == nil {
		g.done = make(chan struct{})
		g.watch()
	}
}

// leave records that the client has gone: it closes done and runs the
// functions of AfterFunc.
func (g *goneContext) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.gone.Store(true)
	close(g.done)
	for f := range g.after {
		go (*f)()
	}
	g.after = nil
}

// watch starts watching the connection, if it is a socket. g.mu must be
// held.
func (g *goneContext) watch() {
	sc, ok := g.conn.(syscall.Conn)
	if !ok {
		return // an in-memory connection: it is never seen to go
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return
	}
	g.stopped = make(chan struct{})
	go func() {
		defer close(g.stopped)
		for {
			gone, err := peekGone(rc)
			if err == nil {
				if gone {
					g.leave()
				}
				return
			}
			// A read deadline: stop's, or the one fasthttp set to read the
			// request, which is left in place while the handler runs.
			g.mu.Lock()
			if g.stopping {
				g.mu.Unlock()
				return
			}
			_ = g.conn.SetReadDeadline(time.Time{})
			g.mu.Unlock()
		}
	}()
}

// stop ends the watch, if any, and waits for it. It leaves a read deadline
// in the past, which fasthttp replaces before it reads the next request.
func (g *goneContext) stop() {
	g.mu.Lock()
	if g.stopped == nil {
		g.mu.Unlock()
		return
	}
	g.stopping = true
	_ = g.conn.SetReadDeadline(longAgo)
	g.mu.Unlock()
	<-g.stopped
}

// longAgo is a read deadline that has passed.
var longAgo = time.Unix(1, 0)
