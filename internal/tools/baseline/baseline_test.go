package main

import (
	"bytes"
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

const (
	testBody = `{"DocumentIncarnation":3,"Events":[]}`
	testTag  = `"3"`
	testURL  = "/metadata/scheduledevents?api-version=2020-07-01"
)

// serveTest answers one request built by the arguments.
func serveTest(t *testing.T, method, target string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	newHandler([]byte(testBody), testTag).ServeHTTP(w, r)
	return w
}

func TestDocument(t *testing.T) {
	w := serveTest(t, http.MethodGet, testURL, "Metadata", "true")
	if w.Code != http.StatusOK || w.Body.String() != testBody {
		t.Fatalf("got %d %q, want 200 %q", w.Code, w.Body, testBody)
	}
	want := map[string]string{
		"Content-Type":       "application/json; charset=utf-8",
		"Content-Length":     "37",
		"Etag":               testTag,
		"Forewarn-Long-Poll": "true",
	}
	for k, v := range want {
		if got := w.Header().Get(k); got != v {
			t.Errorf("%s: got %q, want %q", k, got, v)
		}
	}
}

func TestNotModified(t *testing.T) {
	w := serveTest(t, http.MethodGet, testURL, "Metadata", "True", "If-None-Match", testTag)
	if w.Code != http.StatusNotModified || w.Body.Len() != 0 {
		t.Fatalf("got %d %q, want 304 and no body", w.Code, w.Body)
	}
	if got := w.Header().Get("ETag"); got != testTag {
		t.Errorf("ETag: got %q, want %q", got, testTag)
	}
	w = serveTest(t, http.MethodGet, testURL, "Metadata", "true", "If-None-Match", `"2"`)
	if w.Code != http.StatusOK {
		t.Errorf("other tag: got %d, want 200", w.Code)
	}
}

func TestRefused(t *testing.T) {
	tests := []struct {
		name, method, target string
		hdr                  []string
		status               int
		text                 string
	}{
		{"no header", http.MethodGet, testURL, nil, 400, "Required metadata header"},
		{"header false", http.MethodGet, testURL, []string{"Metadata", "false"}, 400, "Required metadata header"},
		{"no version", http.MethodGet, "/metadata/scheduledevents", []string{"Metadata", "true"}, 400, "api-version is invalid"},
		{"bad version", http.MethodGet, "/metadata/scheduledevents?api-version=2020-07-02", []string{"Metadata", "true"}, 400, "api-version is invalid"},
		{"other path", http.MethodGet, "/metadata/instance?api-version=2020-07-01", []string{"Metadata", "true"}, 404, ""},
		{"delete", http.MethodDelete, testURL, []string{"Metadata", "true"}, 405, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := serveTest(t, tt.method, tt.target, tt.hdr...)
			if w.Code != tt.status || !strings.Contains(w.Body.String(), tt.text) {
				t.Fatalf("got %d %q, want %d with %q", w.Code, w.Body, tt.status, tt.text)
			}
		})
	}
}

func TestFlags(t *testing.T) {
	for _, args := range [][]string{nil, {"--body"}, {"--body", "x", "extra"}, {"--nope"}} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
	o, err := parseFlags([]string{"--body", "b.json", "--etag", `"7"`}, io.Discard)
	if err != nil || o.body != "b.json" || o.etag != `"7"` || o.addr != "127.0.0.1:0" {
		t.Fatalf("got %+v, %v", o, err)
	}
}

// logLines is a log writer that hands each write to the test on a channel.
type logLines struct {
	ch chan []byte
}

// Write sends a copy of p.
func (b *logLines) Write(p []byte) (int, error) {
	b.ch <- bytes.Clone(p)
	return len(p), nil
}

// listening returns the address of run's first log line, "listening
// addr=HOST:PORT"; done is run's exit code.
func listening(t *testing.T, logs *logLines, done <-chan int) string {
	t.Helper()
	var line []byte
	select {
	case line = <-logs.ch:
	case code := <-done:
		t.Fatalf("run ended with %d before listening", code)
	case <-time.After(30 * time.Second):
		t.Fatal("no listening line after 30 s")
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(string(line)), "listening addr=")
	if !ok {
		t.Fatalf("first log line %q", line)
	}
	return addr
}

func TestRunServesAndStops(t *testing.T) {
	file := filepath.Join(t.TempDir(), "body.json")
	if err := os.WriteFile(file, []byte(testBody), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &logLines{ch: make(chan []byte, 16)}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"--body", file}, logs) }()
	addr := listening(t, logs, done)
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+testURL, nil)
	req.Header.Set("Metadata", "true")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(got) != testBody {
		t.Fatalf("got %d %q", resp.StatusCode, got)
	}

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit code %d", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not return 30 s after cancel")
	}
}

func TestRunMissingBody(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.json")
	if code := run(context.Background(), []string{"--body", missing}, io.Discard); code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
}
