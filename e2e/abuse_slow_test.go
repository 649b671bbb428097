package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// slowClient sends the start of its request at once and the rest a byte a
// second, too slowly to finish before a timeout of serve cuts it off.
type slowClient struct {
	name  string
	admin bool
	start string // sent at once
	drip  string // sent a byte a second
	// limit is the timeout that cuts the client off, counted from its
	// connection.
	limit time.Duration
	// answers: the server may answer 400 as it cuts the connection (net/http
	// when the headers ran out of time after the request line, the handler
	// when it could not read the body); else it cuts it without an answer.
	answers bool
}

// slowClients are slow clients running.
type slowClients struct {
	errs chan error
	n    int
	cut  atomic.Int32 // how many the server has cut off (or answered) so far
}

// slowCopies is how many of each slow client run at once.
const slowCopies = 3

// startSlowClients starts slowCopies of each slow client and returns once
// all are connected and have sent their start.
func startSlowClients(t *testing.T, s *server, token, id string) *slowClients {
	t.Helper()
	auth := "Authorization: Bearer " + token
	headerDrip := "X-Slow: " + strings.Repeat("a", 60)
	body := approval(id)
	adminBody := "{}" + strings.Repeat(" ", 62)
	kinds := []slowClient{
		{name: "silent", limit: abuseHeaderTimeout},
		{name: "slowloris", start: "GET " + abuseEvents + " HTTP/1.1\r\nHost: h\r\nMetadata: true\r\n",
			drip: headerDrip, limit: abuseHeaderTimeout, answers: true},
		{name: "slow body", start: head("POST "+abuseEvents+" HTTP/1.1", "Host: h", "Metadata: true",
			fmt.Sprintf("Content-Length: %d", len(body))), drip: body, limit: abuseReadTimeout, answers: true},
		{name: "admin silent", admin: true, limit: abuseHeaderTimeout},
		{name: "admin slowloris", admin: true, start: "GET /v1/events HTTP/1.1\r\nHost: h\r\n" + auth + "\r\n",
			drip: headerDrip, limit: abuseHeaderTimeout, answers: true},
		{name: "admin slow body", admin: true, start: head("POST /v1/events/"+id+"/approve HTTP/1.1", "Host: h", auth,
			fmt.Sprintf("Content-Length: %d", len(adminBody))), drip: adminBody, limit: abuseReadTimeout, answers: true},
	}
	sc := &slowClients{errs: make(chan error, len(kinds)*slowCopies)}
	var started sync.WaitGroup
	for _, c := range kinds {
		addr := s.metaAddr
		if c.admin {
			addr = s.admAddr
		}
		for range slowCopies {
			sc.n++
			started.Add(1)
			go func() { sc.errs <- c.run(addr, started.Done, &sc.cut) }()
		}
	}
	started.Wait()
	return sc
}

// wait fails the test for each slow client that was not cut off in time.
func (sc *slowClients) wait(t *testing.T) {
	t.Helper()
	for range sc.n {
		if err := <-sc.errs; err != nil {
			t.Error(err)
		}
	}
}

// run connects to addr, sends the start, calls started, drips the rest,
// and checks that the server cuts the client off by its limit, not before;
// it counts the client in cut once the server has.
func (c slowClient) run(addr string, started func(), cut *atomic.Int32) error {
	begin := time.Now()
	conn, err := net.Dial("tcp", addr)
	if err == nil {
		_, err = io.WriteString(conn, c.start)
	}
	started()
	if err != nil {
		return fmt.Errorf("%s: %v", c.name, err)
	}
	defer conn.Close()
	// The test's own bound: well past the limit, the client gives up.
	if err := conn.SetDeadline(begin.Add(c.limit + 10*time.Second)); err != nil {
		return err
	}
	stop := make(chan struct{})
	defer close(stop)
	go c.dripTo(conn, stop)
	method, _, _ := strings.Cut(c.start, " ")
	status, body, err := abuseRead(bufio.NewReader(conn), method)
	took := time.Since(begin)
	cut.Add(1)
	switch {
	case err != nil && isTimeout(err):
		return fmt.Errorf("%s: still connected after %v (limit %v)", c.name, took, c.limit)
	case err == nil && (!c.answers || status != http.StatusBadRequest):
		return fmt.Errorf("%s: answered %d %q after %v", c.name, status, excerpt(body), took)
	case took < c.limit-time.Second || took > c.limit+5*time.Second:
		return fmt.Errorf("%s: cut off after %v, want about %v", c.name, took, c.limit)
	}
	return nil
}

// dripTo writes the drip to conn a byte a second until stop, or an error.
func (c slowClient) dripTo(conn net.Conn, stop <-chan struct{}) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for i := range len(c.drip) {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		if _, err := conn.Write([]byte{c.drip[i]}); err != nil {
			return
		}
	}
}

// abuseKeepAlive sends two GETs of the document on one connection, the
// second after it has been idle longer than the header timeout: between
// requests the idle timeout applies, and the header timeout starts only
// with the next request's first bytes.
func abuseKeepAlive(s *server) <-chan error {
	errc := make(chan error, 1)
	go func() {
		conn, err := net.Dial("tcp", s.metaAddr)
		if err != nil {
			errc <- err
			return
		}
		defer conn.Close()
		br := bufio.NewReader(conn)
		for i := range 2 {
			if i == 1 {
				time.Sleep(abuseHeaderTimeout + time.Second)
			}
			if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
				errc <- err
				return
			}
			if _, err := io.WriteString(conn, metaGet(abuseEvents)); err != nil {
				errc <- fmt.Errorf("kept-alive connection, request %d: %v", i+1, err)
				return
			}
			if status, body, err := abuseRead(br, http.MethodGet); err != nil || status != http.StatusOK {
				errc <- fmt.Errorf("kept-alive connection, request %d: %d %q %v", i+1, status, excerpt(body), err)
				return
			}
		}
		errc <- nil
	}()
	return errc
}

// abusePoll is a long-poll in flight.
type abusePoll struct {
	start time.Time
	done  chan abusePollAnswer
}

type abusePollAnswer struct {
	status int
	body   string
	err    error
}

// abuseLongPoll starts a long-poll of up to 300 s for a change from
// incarnation, on a connection of its own: net/http's client would send
// the request again, unseen, on a new connection if the server cut this
// one off.
func abuseLongPoll(s *server, incarnation int) *abusePoll {
	p := &abusePoll{start: time.Now(), done: make(chan abusePollAnswer, 1)}
	go func() {
		conn, err := net.Dial("tcp", s.metaAddr)
		if err != nil {
			p.done <- abusePollAnswer{err: err}
			return
		}
		defer conn.Close()
		_, err = io.WriteString(conn, metaGet(fmt.Sprintf(
			"%s&wait_for_change=true&last_etag=%d&timeout_sec=300", abuseEvents, incarnation)))
		var a abusePollAnswer
		if a.err = err; err == nil {
			a.status, a.body, a.err = abuseRead(bufio.NewReader(conn), http.MethodGet)
		}
		p.done <- a
	}()
	return p
}

// abuseCheckLongPolls checks that the long-poll p, for a change from
// incarnation, is still held past the read timeout, and answers at once
// when event id is cancelled; then that a short long-poll answers when its
// timeout_sec runs out.
func abuseCheckLongPolls(t *testing.T, s *server, p *abusePoll, id string, incarnation int) {
	t.Helper()
	select {
	case a := <-p.done:
		t.Fatalf("long-poll answered after %v, with nothing changed: %d %q %v",
			time.Since(p.start), a.status, a.body, a.err)
	case <-time.After(time.Until(p.start.Add(abuseReadTimeout + 2*time.Second))):
	}
	if _, err := s.admin.Cancel(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	var changed int
	select {
	case a := <-p.done:
		if a.err != nil || a.status != http.StatusOK {
			t.Fatalf("long-poll: %d %q %v", a.status, a.body, a.err)
		}
		if changed = decode(t, a.body).DocumentIncarnation; changed <= incarnation {
			t.Fatalf("long-poll answered incarnation %d, held since %d", changed, incarnation)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("long-poll not answered within 5 s of the event's cancellation")
	}

	// A long-poll of 300 s is held while one of 1 s, sent after it, runs
	// out and answers: timeout_sec is the long-poll's own.
	long := abuseLongPoll(s, changed)
	start := time.Now()
	resp, body := s.get(fmt.Sprintf("api-version=2020-07-01&wait_for_change=true&last_etag=%d&timeout_sec=1", changed))
	took := time.Since(start)
	if resp.StatusCode != http.StatusOK || decode(t, body).DocumentIncarnation != changed {
		t.Fatalf("short long-poll: %d %q", resp.StatusCode, body)
	}
	if took < time.Second {
		t.Fatalf("short long-poll (timeout_sec=1) answered after %v", took)
	}
	select {
	case a := <-long.done:
		t.Fatalf("a long-poll of 300 s answered with the one of 1 s, after %v: %d %q %v", time.Since(long.start), a.status, a.body, a.err)
	default:
	}
}
