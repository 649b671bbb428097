package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// watching runs Watch in the background, sending each delivered document
// to the returned channel; Watch's result goes to the second. It stops at
// cleanup.
func watching(tb testing.TB, c *Client) (<-chan *Document, <-chan error) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	docs := make(chan *Document, 100)
	done := make(chan error, 1)
	go func() {
		done <- c.Watch(ctx, func(d *Document) error { docs <- d; return nil })
	}()
	tb.Cleanup(func() {
		cancel()
		if err := waitFor(tb, done, "Watch to stop"); !errors.Is(err, context.Canceled) {
			tb.Errorf("Watch returned %v, want context.Canceled", err)
		}
	})
	return docs, done
}

// expectIncarnation waits for the next delivery and checks it.
func expectIncarnation(tb testing.TB, docs <-chan *Document, want int) *Document {
	tb.Helper()
	doc := waitFor(tb, docs, fmt.Sprintf("incarnation %d", want))
	if doc.DocumentIncarnation != want {
		tb.Fatalf("delivered incarnation %d, want %d", doc.DocumentIncarnation, want)
	}
	return doc
}

// expectQuiet checks that nothing more was delivered while the fake
// answered n more reads.
func expectQuiet(tb testing.TB, f *fakeIMDS, docs <-chan *Document, n int) {
	tb.Helper()
	drain(f.seen)
	for range n {
		waitFor(tb, f.seen, "another read")
	}
	select {
	case d := <-docs:
		tb.Fatalf("incarnation %d delivered twice", d.DocumentIncarnation)
	default:
	}
}

// sentAfter reports whether some request matches.
func sentAfter(reqs []recorded, match func(recorded) bool) bool {
	for _, r := range reqs {
		if match(r) {
			return true
		}
	}
	return false
}

// drain empties ch.
func drain[T any](ch <-chan T) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

func TestWatchLongPoll(t *testing.T) {
	f := newFake(t, true)
	c := newTestClient(t, f, WithPollInterval(10*time.Millisecond))
	docs, _ := watching(t, c)
	first := expectIncarnation(t, docs, 1)
	if !first.LongPoll || first.ETag != `"1"` {
		t.Errorf("first document %+v", first)
	}
	for want := 2; want <= 6; want++ {
		expectQuiet(t, f, docs, 2) // unchanged long-poll answers (the fake holds 50ms)
		f.bump()
		expectIncarnation(t, docs, want)
	}
	expectQuiet(t, f, docs, 3)
	reqs := f.recorded()
	if q := reqs[0].Query; q["wait_for_change"] != nil {
		t.Errorf("first read long-polled: %v", q)
	}
	for _, r := range reqs[1:] {
		q := r.Query
		if q["wait_for_change"][0] != "true" || q["timeout_sec"][0] != "60" || q["last_etag"] == nil ||
			q["api-version"][0] != DefaultAPIVersion || r.Header.Get("Metadata") != "true" {
			t.Fatalf("long-poll request %v %v", q, r.Header)
		}
	}
	if !sentAfter(reqs, func(r recorded) bool { return r.Query.Get("last_etag") == "6" }) {
		t.Error("no long-poll with last_etag=6 after incarnation 6")
	}
}

func TestWatchPolling(t *testing.T) {
	f := newFake(t, false)
	c := newTestClient(t, f, WithPollInterval(10*time.Millisecond))
	docs, _ := watching(t, c)
	expectIncarnation(t, docs, 1)
	for want := 2; want <= 6; want++ {
		drain(f.notModified)
		waitFor(t, f.notModified, "a 304")
		waitFor(t, f.notModified, "another 304")
		f.bump()
		expectIncarnation(t, docs, want)
	}
	expectQuiet(t, f, docs, 3)
	reqs := f.recorded()
	if !sentAfter(reqs, func(r recorded) bool { return r.Header.Get("If-None-Match") == `"6"` }) {
		t.Error(`no poll with If-None-Match: "6" after incarnation 6`)
	}
	for i, r := range reqs {
		if i > 0 && r.Header.Get("If-None-Match") == "" {
			t.Errorf("read %d sent no If-None-Match", i)
		}
		if r.Query["wait_for_change"] != nil {
			t.Fatalf("long-poll against a server without the header: %v", r.Query)
		}
	}
}

func TestWatchWithLongPollOff(t *testing.T) {
	f := newFake(t, true)
	c := newTestClient(t, f, WithPollInterval(10*time.Millisecond), WithLongPollTimeout(0))
	docs, _ := watching(t, c)
	expectIncarnation(t, docs, 1)
	waitFor(t, f.notModified, "a 304")
	for _, r := range f.recorded() {
		if r.Query["wait_for_change"] != nil {
			t.Fatalf("long-poll while turned off: %v", r.Query)
		}
	}
}

func TestWatchSurvivesRestart(t *testing.T) {
	f := newFake(t, true)
	logs := newLogCapture()
	c := newTestClient(t, f, WithPollInterval(10*time.Millisecond), WithLogger(slogLogger(logs)))
	docs, _ := watching(t, c)
	expectIncarnation(t, docs, 1)
	waitFor(t, f.seen, "a long-poll")

	f.stop()
	for {
		line := waitFor(t, logs.records, "a failed read logged")
		if strings.Contains(line, "connection refused") {
			break
		}
	}
	f.restart()
	f.bump()
	expectIncarnation(t, docs, 2)
	f.bump()
	expectIncarnation(t, docs, 3)
	for {
		if line := waitFor(t, logs.records, "the recovery logged"); strings.Contains(line, "succeed again") {
			break
		}
	}
}

func TestWatchRetriesErrors(t *testing.T) {
	f := newFake(t, false)
	f.fail(injected{status: 500, message: "boom"}, injected{status: 403, message: "no VM owns 127.0.0.1"},
		injected{status: 429, retryAfter: "0", message: "slow down"})
	docs, _ := watching(t, newTestClient(t, f, WithPollInterval(10*time.Millisecond)))
	expectIncarnation(t, docs, 1)
	if n := len(f.recorded()); n != 4 {
		t.Errorf("%d requests before the first document, want 4", n)
	}
}

func TestWatchDropsRefusedLongPoll(t *testing.T) {
	f := newFake(t, true)
	logs := newLogCapture()
	c := newTestClient(t, f, WithPollInterval(10*time.Millisecond), WithLogger(slogLogger(logs)))
	docs, _ := watching(t, c)
	expectIncarnation(t, docs, 1)
	f.fail(injected{status: 400, message: "Bad request. timeout_sec"})
	waitFor(t, f.notModified, "a 304 to a plain poll")
	f.bump()
	expectIncarnation(t, docs, 2)
}

func TestWatchReturnsCallbackError(t *testing.T) {
	f := newFake(t, true)
	stop := errors.New("stop")
	calls := 0
	err := newTestClient(t, f).Watch(testContext(t), func(*Document) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("Watch = %v after %d calls, want stop after 1", err, calls)
	}
}

func TestWatchEndsWithContext(t *testing.T) {
	f := newFake(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	err := newTestClient(t, f).Watch(ctx, func(*Document) error { cancel(); return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Watch = %v, want context.Canceled", err)
	}
}

func TestWatchCallbackMayApprove(t *testing.T) {
	f := newFake(t, true)
	f.setEvents(`{"EventId":"a","EventType":"Reboot","Resources":["web-0"],"EventStatus":"Scheduled","NotBefore":"Mon, 19 Sep 2016 18:29:47 GMT"}`)
	c := newTestClient(t, f)
	var seen []int
	err := c.Watch(testContext(t), func(d *Document) error {
		seen = append(seen, d.DocumentIncarnation)
		if len(seen) == 2 {
			return errors.New("done")
		}
		return c.Approve(context.Background(), d.Events[0].EventId)
	})
	if err == nil || err.Error() != "done" || fmt.Sprint(seen) != "[2 3]" {
		t.Errorf("Watch = %v, seen %v, want done after [2 3]", err, seen)
	}
}

func TestBareETag(t *testing.T) {
	for in, want := range map[string]string{`"4"`: "4", `W/"4"`: "4", "4": "4", ` "12" `: "12"} {
		if got := bareETag(in); got != want {
			t.Errorf("bareETag(%q) = %q, want %q", in, got, want)
		}
	}
}
