package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const longPollURL = testURL + "&wait_for_change=true&last_etag=3"

// got is an answer read whole.
type got struct {
	status int
	header http.Header
	body   string
	err    error
}

// get GETs url with the Metadata header, in the background.
func get(url string) <-chan got {
	ch := make(chan got, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Metadata", "true")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			ch <- got{err: err}
			return
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		ch <- got{resp.StatusCode, resp.Header, string(b), err}
	}()
	return ch
}

// wait returns the answer of ch, failing the test after 30 s.
func wait(t *testing.T, ch <-chan got) got {
	t.Helper()
	select {
	case g := <-ch:
		if g.err != nil {
			t.Fatal(g.err)
		}
		return g
	case <-time.After(30 * time.Second):
		t.Fatal("no answer after 30 s")
	}
	return got{}
}

// post POSTs to url and returns the status and ETag.
func post(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("ETag")
}

// TestLongPollTrigger: long-polls on the current ETag are held until POST
// /trigger, then all answered with the same body tagged with the next
// incarnation, headers as forewarn's; later ones on the old ETag are
// answered at once.
func TestLongPollTrigger(t *testing.T) {
	srv := httptest.NewServer(newHandler([]byte(testBody), testTag))
	defer srv.Close()
	var held []<-chan got
	for _, q := range []string{"3", "%223%22", "W/%223%22"} {
		held = append(held, get(srv.URL+testURL+"&wait_for_change=TRUE&timeout_sec=300&last_etag="+q))
	}
	time.Sleep(100 * time.Millisecond)
	for i, ch := range held {
		select {
		case g := <-ch:
			t.Fatalf("long-poll %d answered before the trigger: %+v", i, g)
		default:
		}
	}
	if status, etag := post(t, srv.URL+"/trigger"); status != http.StatusNoContent || etag != `"4"` {
		t.Fatalf("trigger: %d, ETag %s; want 204, \"4\"", status, etag)
	}
	for _, ch := range append(held, get(srv.URL+longPollURL)) {
		g := wait(t, ch)
		if g.status != http.StatusOK || g.body != testBody || g.header.Get("ETag") != `"4"` ||
			g.header.Get("Content-Length") != "37" || g.header.Get("Content-Type") != contentTypeJSON ||
			g.header.Get("Forewarn-Long-Poll") != "true" {
			t.Errorf("got %d %q %v", g.status, g.body, g.header)
		}
	}
}

// TestLongPollAtOnce: requests that are not long-polls on the current ETag
// are answered at once, and a long-poll never gets a 304.
func TestLongPollAtOnce(t *testing.T) {
	for _, tt := range []struct{ name, query, ifNoneMatch string }{
		{"other ETag", "&wait_for_change=true&last_etag=2", testTag},
		{"no last_etag", "&wait_for_change=true", ""},
		{"wait false", "&wait_for_change=false&last_etag=3", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := serveTest(t, http.MethodGet, testURL+tt.query, "Metadata", "true", "If-None-Match", tt.ifNoneMatch)
			if w.Code != http.StatusOK || w.Body.String() != testBody || w.Header().Get("ETag") != testTag {
				t.Fatalf("got %d %q %v", w.Code, w.Body, w.Header())
			}
		})
	}
}

// TestLongPollTimeout: a long-poll is answered with the unchanged document
// once timeout_sec has passed.
func TestLongPollTimeout(t *testing.T) {
	srv := httptest.NewServer(newHandler([]byte(testBody), testTag))
	defer srv.Close()
	start := time.Now()
	g := wait(t, get(srv.URL+longPollURL+"&timeout_sec=1"))
	if took := time.Since(start); took < time.Second {
		t.Errorf("answered after %v, before timeout_sec=1", took)
	}
	if g.status != http.StatusOK || g.body != testBody || g.header.Get("ETag") != testTag {
		t.Errorf("got %d %q %v", g.status, g.body, g.header)
	}
}

func TestLongPollRefused(t *testing.T) {
	const waitText, timeoutText = "wait_for_change must be true or false", "timeout_sec must be a whole number"
	for _, tt := range []struct{ query, want string }{
		{"&wait_for_change=yes&last_etag=3", waitText},
		{"&wait_for_change=&last_etag=3", waitText},
		{"&wait_for_change=true&last_etag=3&timeout_sec=0", timeoutText},
		{"&wait_for_change=true&last_etag=3&timeout_sec=301", timeoutText},
		{"&wait_for_change=true&last_etag=3&timeout_sec=1.5", timeoutText},
	} {
		w := serveTest(t, http.MethodGet, testURL+tt.query, "Metadata", "true")
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), tt.want) {
			t.Errorf("%s: got %d %q, want 400 with %q", tt.query, w.Code, w.Body, tt.want)
		}
	}
}

func TestTriggerRefused(t *testing.T) {
	if w := serveTest(t, http.MethodGet, "/trigger"); w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "POST" {
		t.Errorf("GET /trigger: got %d, Allow %q", w.Code, w.Header().Get("Allow"))
	}
	h := newHandler([]byte(testBody), `"v1"`)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/trigger", nil))
	if w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), `ETag "v1" is not a quoted incarnation number`) {
		t.Errorf("ETag v1: got %d %q", w.Code, w.Body)
	}
}

// TestRunAnswersHeldOnStop: stopping the server answers a held long-poll
// at once, with the unchanged document, and exits 0.
func TestRunAnswersHeldOnStop(t *testing.T) {
	file := filepath.Join(t.TempDir(), "body.json")
	if err := os.WriteFile(file, []byte(testBody), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &logLines{ch: make(chan []byte, 16)}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"--body", file, "--etag", testTag}, logs) }()
	addr := listening(t, logs, done)

	ch := get("http://" + addr + longPollURL + "&timeout_sec=300")
	time.Sleep(200 * time.Millisecond) // held by then: else the test passes without testing the stop
	cancel()
	if g := wait(t, ch); g.status != http.StatusOK || g.header.Get("ETag") != testTag {
		t.Errorf("got %d %v", g.status, g.header)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit code %d", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not return 30 s after cancel")
	}
}
