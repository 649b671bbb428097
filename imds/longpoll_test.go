package imds

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// poll starts a long-poll from src in the background.
func (e *env) poll(tb testing.TB, src, query string) <-chan answer {
	tb.Helper()
	return async(func() answer {
		a, err := e.call(tb, context.Background(), src, http.MethodGet, eventsURL("2020-07-01", query), nil,
			"Metadata", "true")
		if err != nil {
			return answer{status: -1, body: err.Error()}
		}
		return a
	})
}

// mustNotAnswer fails if ch has an answer already.
func mustNotAnswer(tb testing.TB, ch <-chan answer) {
	tb.Helper()
	select {
	case a := <-ch:
		tb.Fatalf("long-poll answered early: %d %s", a.status, a.body)
	default:
	}
}

func TestLongPollReturnsOnPublish(t *testing.T) {
	for _, etag := range []string{"4", "%224%22", "W/%224%22"} {
		t.Run(etag, func(t *testing.T) {
			e := mustStartEnv(t)
			ch := e.poll(t, addrWeb0, "wait_for_change=true&last_etag="+etag)
			e.waitHeld(t, 1)
			mustNotAnswer(t, ch)
			snap := webSnapshot(5)
			snap.Events = nil
			e.publish(snap)
			a := receive(t, ch)
			checkAnswer(t, a, http.StatusOK, `{"DocumentIncarnation":5,"Events":[]}`)
			checkDocumentHeaders(t, a, `"5"`)
		})
	}
}

func TestLongPollReturnsAtTimeout(t *testing.T) {
	cases := []struct {
		query   string
		timeout time.Duration
	}{
		{"wait_for_change=true&last_etag=4", 60 * time.Second},
		{"wait_for_change=TRUE&last_etag=4&timeout_sec=1", time.Second},
		{"wait_for_change=true&last_etag=4&timeout_sec=300", 300 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			e := mustStartEnv(t)
			ch := e.poll(t, addrWeb0, c.query)
			e.waitHeld(t, 1)
			e.clock.Advance(c.timeout - time.Millisecond)
			mustNotAnswer(t, ch)
			e.clock.Advance(time.Millisecond)
			a := receive(t, ch)
			if a.status != http.StatusOK {
				t.Fatalf("status %d: %s", a.status, a.body)
			}
			checkDocumentHeaders(t, a, `"4"`)
			mustContain(t, a.body, `{"DocumentIncarnation":4,`)
		})
	}
}

// TestLongPollAnswersAtOnce covers the requests that must not be held.
func TestLongPollAnswersAtOnce(t *testing.T) {
	e := mustStartEnv(t)
	for _, q := range []string{
		"wait_for_change=true",                   // no last_etag
		"wait_for_change=true&last_etag=3",       // older
		"wait_for_change=true&last_etag=%223%22", // older, quoted
		"wait_for_change=true&last_etag=",
		"wait_for_change=false&last_etag=4", // not asked to wait
		"last_etag=4",
	} {
		a := e.get(t, addrWeb0, eventsURL("2020-07-01", q))
		if a.status != http.StatusOK {
			t.Errorf("%s: status %d", q, a.status)
		}
		checkDocumentHeaders(t, a, `"4"`)
	}
}

// TestLongPollIgnoresIfNoneMatch: a long-poll answers 200 either way.
func TestLongPollIgnoresIfNoneMatch(t *testing.T) {
	e := mustStartEnv(t)
	a := e.get(t, addrWeb0, eventsURL("2020-07-01", "wait_for_change=true&last_etag=3"), "If-None-Match", `"4"`)
	if a.status != http.StatusOK {
		t.Errorf("status %d, want 200", a.status)
	}
	// Without last_etag it is a plain GET.
	a = e.get(t, addrWeb0, eventsURL("2020-07-01", "wait_for_change=true"), "If-None-Match", `"4"`)
	if a.status != http.StatusNotModified {
		t.Errorf("status %d, want 304", a.status)
	}
}

// TestLongPollAnyScopeChange: a change of the VMs alone also answers.
func TestLongPollAnyScopeChange(t *testing.T) {
	e := mustStartEnv(t)
	ch := e.poll(t, addrWeb0, "wait_for_change=true&last_etag=4")
	e.waitHeld(t, 1)
	snap := webSnapshot(4)
	snap.VMs = append(snap.VMs, &forewarn.VM{Name: "web-2", Scope: "web", Addresses: []string{"127.0.0.6"}})
	e.publish(snap)
	a := receive(t, ch)
	if a.status != http.StatusOK {
		t.Fatalf("status %d", a.status)
	}
	checkDocumentHeaders(t, a, `"4"`)
}

// TestLongPollOtherScopeDoesNotWake: a publish of another scope leaves the
// poll held.
func TestLongPollOtherScopeDoesNotWake(t *testing.T) {
	e := mustStartEnv(t)
	ch := e.poll(t, addrWeb0, "wait_for_change=true&last_etag=4&timeout_sec=5")
	e.waitHeld(t, 1)
	db := dbSnapshot()
	db.Scope.Incarnation = 2
	e.publish(db)
	mustNotAnswer(t, ch)
	e.clock.Advance(5 * time.Second)
	checkDocumentHeaders(t, receive(t, ch), `"4"`)
}

func TestLongPollDeletedVM(t *testing.T) {
	e := mustStartEnv(t)
	ch := e.poll(t, addrWeb0, "wait_for_change=true&last_etag=4")
	e.waitHeld(t, 1)
	snap := webSnapshot(5)
	snap.VMs = snap.VMs[1:] // web-0 deleted
	e.publish(snap)
	a := receive(t, ch)
	checkAnswer(t, a, http.StatusForbidden, `{"error":"Forbidden. The address 127.0.0.2 belongs to no VM"}`)
	if a.header.Get(longPollHeader) != "true" {
		t.Errorf("403 lacks %s", longPollHeader)
	}
}

func TestLongPollRemovedScope(t *testing.T) {
	e := mustStartEnv(t)
	ch := e.poll(t, addrWeb1, "wait_for_change=true&last_etag=4")
	e.waitHeld(t, 1)
	e.srv.RemoveScope("WEB")
	a := receive(t, ch)
	checkAnswer(t, a, http.StatusForbidden, `{"error":"Forbidden. The address 127.0.0.3 belongs to no VM"}`)
}

func TestLongPollShutdown(t *testing.T) {
	e := mustStartEnv(t)
	ch1 := e.poll(t, addrWeb0, "wait_for_change=true&last_etag=4")
	ch2 := e.poll(t, addrWeb1, "wait_for_change=true&last_etag=4")
	e.waitHeld(t, 2)
	e.srv.Shutdown()
	for _, ch := range []<-chan answer{ch1, ch2} {
		a := receive(t, ch)
		if a.status != http.StatusOK {
			t.Fatalf("status %d", a.status)
		}
		checkDocumentHeaders(t, a, `"4"`)
	}
	// Later long-polls answer at once; a second Shutdown is harmless.
	e.srv.Shutdown()
	a := e.get(t, addrWeb0, eventsURL("2020-07-01", "wait_for_change=true&last_etag=4"))
	checkDocumentHeaders(t, a, `"4"`)
}

// TestLongPollClientGone checks that a disconnect ends the wait at once:
// the handler records the request as answered with nothing, and the
// listener's Close in cleanup would hang on a handler left waiting.
func TestLongPollClientGone(t *testing.T) {
	e := mustStartEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := e.call(t, ctx, addrWeb0, http.MethodGet,
			eventsURL("2020-07-01", "wait_for_change=true&last_etag=4"), nil, "Metadata", "true")
		errc <- err
	}()
	e.waitHeld(t, 1)
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("cancelled long-poll answered")
	}
	waitCounter(t, e, "none", 1)
	// The server still answers, on the connection of a pipelined request
	// too (the handler watched it for the client going away, took no byte
	// of the next request, and left no deadline behind).
	checkDocumentHeaders(t, e.get(t, addrWeb0, eventsURL("2020-07-01")), `"4"`)
}

// TestLongPollHalfClosed: a client that closes its sending side while its
// long-poll is held has gone, as net/http's server takes it: the request is
// recorded as answered with nothing, and nothing is sent, not an empty 200
// that reads as an answer.
func TestLongPollHalfClosed(t *testing.T) {
	e := mustStartEnv(t)
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(addrWeb0)}}
	conn, err := d.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req := "GET " + eventsURL("2020-07-01", "wait_for_change=true&last_etag=4") +
		" HTTP/1.1\r\nHost: 169.254.169.254\r\nMetadata: true\r\n\r\n"
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	e.waitHeld(t, 1)
	if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(conn); len(got) != 0 || err != nil {
		t.Errorf("read %q, %v; want nothing, then the end", got, err)
	}
	waitCounter(t, e, "none", 1)
}

// waitCounter waits up to 10 s for the requests of scheduledevents
// answered with code to count want: the handler records a request once its
// connection is closed or its answer written, which the client may see
// first.
func waitCounter(t *testing.T, e *env, code string, want float64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for got := counterValue(t, e.reg, pathEvents, code); got != want; got = counterValue(t, e.reg, pathEvents, code) {
		if time.Now().After(deadline) {
			t.Fatalf("requests{code=%s} = %v, want %v", code, got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLongPollEnables checks that a long-poll enables the scope like any GET.
func TestLongPollEnables(t *testing.T) {
	e := mustStartEnv(t)
	ch := e.poll(t, addrDB0, "wait_for_change=true&last_etag=1")
	e.waitHeld(t, 1)
	if got := e.meta.enabledScopes(); len(got) != 1 || got[0] != "db-0" {
		t.Errorf("enabled %v, want [db-0]", got)
	}
	e.srv.Shutdown()
	receive(t, ch)
}
