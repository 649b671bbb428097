package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// lpClient is one long-poll on a connection of its own. Its fields are
// written by its reader goroutine before it is marked done.
type lpClient struct {
	conn   *net.TCPConn
	answer answer
	err    error
}

// lpGroup is every long-poll of the load.
type lpGroup struct {
	clients  []*lpClient
	done     sync.WaitGroup // a reader per client
	answered atomic.Int64   // answers and errors so far
}

// currentTag GETs the document as the VM at addr, which also enables its
// scope, and returns its ETag without quotes.
func currentTag(ctx context.Context, o longpollOptions, addr netip.Addr) (string, error) {
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: dialFrom(addr).DialContext}}
	defer c.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.endpoint+eventsPath(o.apiVersion), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Metadata", "true")
	resp, err := c.Do(req)
	if err != nil {
		return "", fmt.Errorf("GET the document as %s (%v): %w", o.layout.vmName(0), addr, err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET the document as %s (%v): %s: %s (is the fleet applied?)",
			o.layout.vmName(0), addr, resp.Status, strings.TrimSpace(string(body)))
	}
	tag := trimTag(resp.Header.Get("ETag"))
	if tag == "" {
		return "", errors.New("the document has no ETag: the endpoint cannot long-poll")
	}
	return tag, nil
}

// openLongPolls opens o.clients connections, client i from addrs[i %
// len(addrs)], o.dialers at a time, and sends each a long-poll for a change
// from tag. It returns once every request is sent; readers then wait for
// the answers.
func openLongPolls(ctx context.Context, o longpollOptions, server netip.AddrPort, addrs []netip.Addr, tag string) (*lpGroup, error) {
	req := []byte(fmt.Sprintf("GET %s&wait_for_change=true&last_etag=%s&timeout_sec=%d HTTP/1.1\r\n"+
		"Host: %s\r\nMetadata: true\r\nUser-Agent: fleetload\r\n\r\n",
		eventsPath(o.apiVersion), url.QueryEscape(tag), int(o.pollTimeout/time.Second), server))
	g := &lpGroup{clients: make([]*lpClient, o.clients)}
	sem := make(chan struct{}, o.dialers)
	var opened sync.WaitGroup
	var firstErr atomic.Pointer[error]
	for i := range g.clients {
		c := &lpClient{}
		g.clients[i] = c
		sem <- struct{}{}
		opened.Add(1)
		go func() {
			defer opened.Done()
			err := c.open(ctx, addrs[i%len(addrs)], server, req)
			<-sem
			if err != nil {
				firstErr.CompareAndSwap(nil, &err)
				return
			}
			g.done.Add(1)
			go g.read(c)
		}()
		if firstErr.Load() != nil {
			break
		}
	}
	opened.Wait()
	if err := firstErr.Load(); err != nil {
		g.close()
		return nil, fmt.Errorf("open the long-polls: %w (ulimit -n is enough for -clients?)", *err)
	}
	return g, nil
}

// open dials server from addr and sends req.
func (c *lpClient) open(ctx context.Context, addr netip.Addr, server netip.AddrPort, req []byte) error {
	conn, err := dialFrom(addr).DialContext(ctx, "tcp", server.String())
	if err != nil {
		return err
	}
	c.conn = conn.(*net.TCPConn)
	if _, err := conn.Write(req); err != nil {
		return fmt.Errorf("send from %v: %w", addr, err)
	}
	return nil
}

// read waits for c's answer and reads it whole.
func (g *lpGroup) read(c *lpClient) {
	defer g.done.Done()
	defer g.answered.Add(1)
	c.answer, c.err = readAnswer(c.conn)
}

// close closes every connection.
func (g *lpGroup) close() {
	for _, c := range g.clients {
		if c != nil && c.conn != nil {
			c.conn.Close()
		}
	}
}

// waitHeld waits until the server holds every long-poll: each accepted and
// read (the kernel's socket table, if o.checkHeld), then o.settle. It fails
// if any was answered meanwhile. It returns how it knew.
func (g *lpGroup) waitHeld(ctx context.Context, o longpollOptions, server netip.AddrPort) (string, error) {
	how := fmt.Sprintf("%d long-polls sent, then %v", len(g.clients), o.settle)
	if o.checkHeld {
		s, err := waitHeld(ctx, server, len(g.clients), time.Minute)
		if err != nil {
			return "", err
		}
		how = fmt.Sprintf("%d connections accepted and read by the server (socket table), then %v", s.established, o.settle)
	}
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case <-time.After(o.settle):
	}
	if n := g.answered.Load(); n > 0 {
		return "", fmt.Errorf("%d long-polls were answered before the change (%s): "+
			"the scope changed meanwhile, or the server does not hold them", n, g.firstAnswer())
	}
	return how, nil
}

// firstAnswer describes an answer or error a client got.
func (g *lpGroup) firstAnswer() string {
	for _, c := range g.clients {
		switch {
		case c.err != nil:
			return "first: " + c.err.Error()
		case c.answer.status != 0:
			return fmt.Sprintf("first: %d, ETag %q", c.answer.status, c.answer.etag)
		}
	}
	return "none seen"
}

// change makes the change, waits o.wait at most for every answer, and
// tallies them against the time just before the call that made it was
// sent.
func (g *lpGroup) change(ctx context.Context, o longpollOptions, maker changeMaker, tag, held string) (*longpollResult, error) {
	meter := cpuMeter{pid: o.serverPID}
	if err := meter.start(); err != nil {
		return nil, err
	}
	ch, err := maker.makeChange(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range g.clients {
		c.conn.SetReadDeadline(ch.sent.Add(o.wait))
	}
	g.done.Wait()
	use, err := meter.stop()
	if err != nil {
		return nil, err
	}
	r := &longpollResult{CPU: use, Mode: "longpoll", Clients: len(g.clients), VMs: o.layout.vms,
		Scope: o.layout.scopeName(0), Held: held, Change: ch.what, VM: ch.vm, Event: ch.event,
		AckMs: ms(ch.took), OldTag: tag, TargetMs: ms(o.target)}
	r.tally(g.clients, ch.sent)
	r.Pass = r.Errors == 0 && r.Missing == 0 && r.Latency.P99 <= r.TargetMs
	return r, nil
}
