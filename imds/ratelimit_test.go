package imds

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

func TestRateLimit(t *testing.T) {
	e := mustStartEnv(t, withRateLimit(DefaultRateLimit))
	ev := eventsURL("2020-07-01")
	for i := range 10 {
		if a := e.get(t, addrWeb0, ev); a.status != http.StatusOK {
			t.Fatalf("request %d: status %d", i, a.status)
		}
	}
	a := e.get(t, addrWeb0, ev)
	checkAnswer(t, a, http.StatusTooManyRequests, bodyTooMany)
	if got := a.header.Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After %q, want 1", got)
	}
	if a.header.Get(longPollHeader) != "true" {
		t.Errorf("429 lacks %s", longPollHeader)
	}
	// Every path shares the VM's bucket.
	a = e.get(t, addrWeb0, "/metadata/instance?api-version=2021-02-01")
	checkAnswer(t, a, http.StatusTooManyRequests, bodyTooMany)
	a = e.post(t, addrWeb0, ev, approveOneBody)
	checkAnswer(t, a, http.StatusTooManyRequests, bodyTooMany)
	checkAnswer(t, e.get(t, addrWeb0, pathVersions), http.StatusTooManyRequests, bodyTooMany)

	// Requests refused by an earlier check take no token.
	checkAnswer(t, e.get(t, addrWeb1, pathEvents), http.StatusBadRequest, bodyEventsVer)

	// Other VMs have their own buckets.
	if a := e.get(t, addrWeb1, ev); a.status != http.StatusOK {
		t.Errorf("web-1: status %d", a.status)
	}
	// 5 a second: one token back after 200ms.
	e.clock.Advance(200 * time.Millisecond)
	if a := e.get(t, addrWeb0, ev); a.status != http.StatusOK {
		t.Errorf("after 200ms: status %d", a.status)
	}
	if a := e.get(t, addrWeb0, ev); a.status != http.StatusTooManyRequests {
		t.Errorf("status %d, want 429", a.status)
	}
}

// TestRateLimitUnknownCaller: /metadata/versions limits unknown callers by
// address.
func TestRateLimitUnknownCaller(t *testing.T) {
	e := mustStartEnv(t, withRateLimit(1))
	for range 2 {
		checkAnswer(t, e.get(t, addrUnknown, pathVersions), http.StatusOK, string(versionsBody))
	}
	a := e.get(t, addrUnknown, pathVersions)
	checkAnswer(t, a, http.StatusTooManyRequests, bodyTooMany)
	if a.header.Get("Retry-After") != "1" {
		t.Errorf("Retry-After %q", a.header.Get("Retry-After"))
	}
	// Unknown callers of other paths are refused before the rate limit.
	checkAnswer(t, e.get(t, addrUnknown, eventsURL("2020-07-01")), http.StatusForbidden, bodyForbidden)
}

func TestRateLimitOff(t *testing.T) {
	e := mustStartEnv(t)
	for i := range 50 {
		if a := e.get(t, addrWeb0, eventsURL("2020-07-01")); a.status != http.StatusOK {
			t.Fatalf("request %d: status %d", i, a.status)
		}
	}
}

func TestLimiterRetryAfter(t *testing.T) {
	now := epoch
	l := newLimiter(0.1) // one request every 10s, burst 1
	if ok, _ := l.allow("a", now); !ok {
		t.Fatal("first request refused")
	}
	if ok, wait := l.allow("a", now); ok || wait != 10 {
		t.Errorf("allow = %v, %d; want false, 10", ok, wait)
	}
	if ok, wait := l.allow("a", now.Add(7500*time.Millisecond)); ok || wait != 3 {
		t.Errorf("allow = %v, %d; want false, 3", ok, wait)
	}
	if newLimiter(0) != nil || newLimiter(-1) != nil {
		t.Error("a limit of 0 or less is not off")
	}
}

// TestLimiterPrunes: idle buckets are dropped once there are many.
func TestLimiterPrunes(t *testing.T) {
	l := newLimiter(5)
	for i := range pruneFloor {
		l.allow("vm-"+strconv.Itoa(i), epoch)
	}
	l.allow("late", epoch.Add(time.Hour))
	if n := len(l.buckets); n != 1 {
		t.Errorf("%d buckets after pruning, want 1", n)
	}
}
