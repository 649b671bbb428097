package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRetriesHonourRetryAfter(t *testing.T) {
	f := newFake(t, false)
	f.fail(injected{status: 500, message: "boom"}, injected{status: 410, message: "gone"},
		injected{status: 429, retryAfter: "1", message: "slow down"})
	clock := &recordingClock{}
	c := newTestClient(t, f, WithClock(clock), WithRetry(4, 100*time.Millisecond))
	doc, err := c.Get(testContext(t))
	if err != nil {
		t.Fatalf("Get after 500, 410, 429: %v", err)
	}
	if doc.DocumentIncarnation != 1 {
		t.Errorf("incarnation %d", doc.DocumentIncarnation)
	}
	if n := len(f.recorded()); n != 4 {
		t.Errorf("%d requests, want 4", n)
	}
	waits := clock.recordedWaits()
	if len(waits) != 3 {
		t.Fatalf("waits %v, want 3", waits)
	}
	// Equal jitter: between half and all of base, then of 2*base.
	if waits[0] < 50*time.Millisecond || waits[0] > 100*time.Millisecond {
		t.Errorf("wait after 500 = %v, want 50ms..100ms", waits[0])
	}
	if waits[1] < 100*time.Millisecond || waits[1] > 200*time.Millisecond {
		t.Errorf("wait after 410 = %v, want 100ms..200ms", waits[1])
	}
	if waits[2] != time.Second {
		t.Errorf("wait after 429 with Retry-After: 1 = %v, want 1s", waits[2])
	}
}

func TestNoRetryOn400(t *testing.T) {
	f := newFake(t, false)
	f.fail(injected{status: 400, message: "Bad request. api-version is invalid"})
	_, err := newTestClient(t, f).Get(testContext(t))
	apiErr, ok := errors.AsType[*APIError](err)
	if !ok {
		t.Fatalf("err = %v, want *APIError", err)
	}
	if apiErr.StatusCode != 400 || apiErr.Message != "Bad request. api-version is invalid" || apiErr.Retryable() {
		t.Errorf("APIError = %+v", apiErr)
	}
	if n := len(f.recorded()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestApproveRetriesAndStops(t *testing.T) {
	f := newFake(t, false)
	c := newTestClient(t, f, WithRetry(3, time.Millisecond))
	ctx := testContext(t)
	if _, err := c.Get(ctx); err != nil {
		t.Fatal(err)
	}
	f.fail(injected{status: 503, message: "busy"}, injected{status: 503, message: "busy"}, injected{status: 503, message: "busy"})
	err := c.Approve(ctx, "a")
	apiErr, ok := errors.AsType[*APIError](err)
	if !ok || apiErr.StatusCode != 503 || !strings.Contains(err.Error(), "3 attempts") {
		t.Fatalf("err = %v, want the last 503 after 3 attempts", err)
	}
	if n := len(f.recorded()); n != 4 {
		t.Errorf("%d requests, want 1 GET and 3 POSTs", n)
	}
}

func TestRetryOnConnectionRefused(t *testing.T) {
	f := newFake(t, false)
	f.stop()
	clock := &recordingClock{}
	_, err := newTestClient(t, f, WithClock(clock), WithRetry(3, time.Millisecond)).Get(testContext(t))
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("err = %v, want connection refused", err)
	}
	if n := len(clock.recordedWaits()); n != 2 {
		t.Errorf("%d waits, want 2 (3 attempts)", n)
	}
}

func TestRetryAfterSlowAnswer(t *testing.T) {
	release := make(chan struct{})
	calls := make(chan struct{}, 10)
	srv := newHandlerServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls <- struct{}{}
		if len(calls) == 1 { // the first request hangs until the client gives up
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		w.Write([]byte(`{"DocumentIncarnation":9,"Events":[]}`))
	}))
	t.Cleanup(func() { close(release) }) // runs before the server's Close
	c := New(WithEndpoint(srv), WithRetry(3, time.Millisecond), WithTimeouts(20*time.Millisecond, 20*time.Millisecond))
	doc, err := c.Get(testContext(t))
	if err != nil || doc.DocumentIncarnation != 9 {
		t.Fatalf("Get = %+v, %v", doc, err)
	}
}

func TestContextEndsRetries(t *testing.T) {
	f := newFake(t, false)
	f.fail(injected{status: 429, retryAfter: "600", message: "later"})
	ctx, cancel := context.WithCancel(context.Background())
	logs := newLogCapture()
	c := newTestClient(t, f, WithLogger(slogLogger(logs)))
	done := make(chan error, 1)
	go func() { _, err := c.Get(ctx); done <- err }()
	waitFor(t, logs.records, "the retry log")
	cancel()
	err := waitFor(t, done, "Get to return")
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "429") {
		t.Errorf("err = %v, want context.Canceled with the last error", err)
	}
}

func TestAPIErrorParsing(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}
	e := newAPIError(400, h, []byte(`{"error":"Bad request. api-version is invalid","newest-versions":["2020-07-01","2019-08-01"]}`), now)
	if e.Message != "Bad request. api-version is invalid" || len(e.NewestVersions) != 2 || e.RetryAfter != 90*time.Second {
		t.Errorf("APIError = %+v", e)
	}
	if e := newAPIError(502, nil, []byte("<html>bad gateway</html>"), now); e.Message != "<html>bad gateway</html>" {
		t.Errorf("non-JSON body gave %q", e.Message)
	}
	if e := newAPIError(503, nil, nil, now); e.Message != "Service Unavailable" {
		t.Errorf("empty body gave %q", e.Message)
	}
	if e := newAPIError(500, nil, []byte(`{"error":{"code":"X","message":"inner"}}`), now); e.Message != "inner" {
		t.Errorf("object error gave %q", e.Message)
	}
	if !strings.Contains(e.Error(), "400 Bad Request: Bad request. api-version") {
		t.Errorf("Error() = %q", e.Error())
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"": 0, "0": 0, "3": 3 * time.Second, "-5": 0, "soon": 0, "99999": maxRetryAfter,
		now.Add(-time.Minute).Format(http.TimeFormat): 0,
	} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestBackoffIsCapped(t *testing.T) {
	p := retryPolicy{attempts: 5, base: time.Second, max: maxBackoff}
	for failure := range 100 {
		if d := p.delay(failure, nil); d > maxBackoff || d < time.Second/2 {
			t.Fatalf("delay(%d) = %v", failure, d)
		}
	}
}
