package imds

import (
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/forewarn/forewarn"
)

// rule returns a chaos rule created at epoch that lasts spec.For.
func rule(id string, spec forewarn.ChaosSpec) *forewarn.ChaosRule {
	return &forewarn.ChaosRule{ID: id, ChaosSpec: spec, CreatedAt: epoch, Until: epoch.Add(time.Duration(spec.For))}
}

// hour is the For of rules that outlast a test.
const hour = forewarn.Duration(time.Hour)

// seeded is a deterministic Config.Rand.
func seeded() func() float64 { return rand.New(rand.NewPCG(1, 2)).Float64 }

// constant is a Config.Rand that always draws v.
func constant(v float64) func() float64 { return func() float64 { return v } }

// chaosCount reads forewarn_metadata_chaos_total{fault} from reg.
func chaosCount(tb testing.TB, reg prometheus.Gatherer, fault string) float64 {
	tb.Helper()
	families, err := reg.Gather()
	if err != nil {
		tb.Fatalf("gather: %v", err)
	}
	for _, f := range families {
		if f.GetName() != "forewarn_metadata_chaos_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			if m.GetLabel()[0].GetValue() == fault {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

const bodyGone = `{"error":"Gone"}`

// TestChaosFraction: a rule hits its fraction of the requests, within
// tolerance; the others are served, and only they enable the scope.
func TestChaosFraction(t *testing.T) {
	e := mustStartEnv(t, withRand(seeded()))
	e.srv.PublishChaos([]*forewarn.ChaosRule{
		rule("c1", forewarn.ChaosSpec{Scope: "web", Status: 500, Fraction: 0.3, For: hour}),
	})
	const n = 2000
	hits := 0
	for i := range n {
		a := e.get(t, addrWeb0, eventsURL("2020-07-01"))
		switch a.status {
		case http.StatusInternalServerError:
			hits++
			if a.body != bodyInternal {
				t.Fatalf("request %d: hit answered %s", i, a.body)
			}
		case http.StatusOK:
		default:
			t.Fatalf("request %d: status %d %s", i, a.status, a.body)
		}
	}
	if got := float64(hits) / n; math.Abs(got-0.3) > 0.03 {
		t.Errorf("%d of %d requests hit (%.3f), want 0.3 +- 0.03", hits, n, got)
	}
	if got := chaosCount(t, e.reg, "500"); got != float64(hits) {
		t.Errorf("chaos_total{fault=500} = %v, want %d", got, hits)
	}
	if got := len(e.meta.enabledScopes()); got != n-hits {
		t.Errorf("%d requests enabled the scope, want the %d served", got, n-hits)
	}
}

// TestChaosDefaultRand: without Config.Rand, a fraction of 1 hits every
// request.
func TestChaosDefaultRand(t *testing.T) {
	e := mustStartEnv(t)
	e.srv.PublishChaos([]*forewarn.ChaosRule{rule("c1", forewarn.ChaosSpec{Status: 410, Fraction: 1, For: hour})})
	for range 20 {
		checkAnswer(t, e.get(t, addrDB0, eventsURL("2020-07-01")), http.StatusGone, bodyGone)
	}
}

// TestChaosScope: a rule of a scope hits its VMs on every path but
// /metadata/versions, and no other scope.
func TestChaosScope(t *testing.T) {
	e := mustStartEnv(t)
	e.srv.PublishChaos([]*forewarn.ChaosRule{rule("c1", forewarn.ChaosSpec{Scope: "WEB", Status: 410, Fraction: 1, For: hour})})
	for _, src := range []string{addrWeb0, addrWeb1} {
		for _, target := range []string{eventsURL("2017-03-01"), "/metadata/instance?api-version=2021-02-01",
			"/metadata/instance/compute/name?api-version=2021-02-01&format=text"} {
			checkAnswer(t, e.get(t, src, target), http.StatusGone, bodyGone)
		}
		checkAnswer(t, e.post(t, src, eventsURL("2020-07-01"), approveOneBody), http.StatusGone, bodyGone)
		checkAnswer(t, e.get(t, src, pathVersions), http.StatusOK, string(versionsBody))
	}
	for _, src := range []string{addrDB0, addrPool0} {
		if a := e.get(t, src, eventsURL("2020-07-01")); a.status != http.StatusOK {
			t.Errorf("%s: status %d %s, want 200", src, a.status, a.body)
		}
		if a := e.get(t, src, "/metadata/instance?api-version=2021-02-01"); a.status != http.StatusOK {
			t.Errorf("%s instance: status %d %s, want 200", src, a.status, a.body)
		}
	}
	// An unknown caller gets its 403 first.
	checkAnswer(t, e.get(t, addrUnknown, eventsURL("2020-07-01")), http.StatusForbidden, bodyForbidden)
	if got := chaosCount(t, e.reg, "410"); got != 8 {
		t.Errorf("chaos_total{fault=410} = %v, want 8", got)
	}
}

// TestChaosVM: a rule of a VM hits that VM only, and its 429 says when to
// retry.
func TestChaosVM(t *testing.T) {
	e := mustStartEnv(t)
	e.srv.PublishChaos([]*forewarn.ChaosRule{rule("c1", forewarn.ChaosSpec{VM: "web-1", Status: 429, Fraction: 1, For: hour})})
	a := e.get(t, addrWeb1, eventsURL("2020-07-01"))
	checkAnswer(t, a, http.StatusTooManyRequests, bodyTooMany)
	if got := a.header.Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After %q, want 1", got)
	}
	if a.header.Get(longPollHeader) != "true" {
		t.Errorf("the 429 lacks %s", longPollHeader)
	}
	if a := e.get(t, addrWeb0, eventsURL("2020-07-01")); a.status != http.StatusOK {
		t.Errorf("web-0: status %d, want 200", a.status)
	}
}

// TestChaosFirstRuleDecides: only the first rule that matches the caller
// is drawn for; a miss does not fall through to the next.
func TestChaosFirstRuleDecides(t *testing.T) {
	e := mustStartEnv(t, withRand(constant(0.5)))
	e.srv.PublishChaos([]*forewarn.ChaosRule{
		rule("c1", forewarn.ChaosSpec{VM: "db-0", Status: 410, Fraction: 0.4, For: hour}),
		rule("c2", forewarn.ChaosSpec{VM: "web-0", Status: 410, Fraction: 1, For: hour}),
		rule("c3", forewarn.ChaosSpec{Status: 500, Fraction: 1, For: hour}),
	})
	checkAnswer(t, e.get(t, addrWeb0, eventsURL("2020-07-01")), http.StatusGone, bodyGone)
	checkAnswer(t, e.get(t, addrWeb1, eventsURL("2020-07-01")), http.StatusInternalServerError, bodyInternal)
	if a := e.get(t, addrDB0, eventsURL("2020-07-01")); a.status != http.StatusOK {
		t.Errorf("db-0: status %d, want 200 (its rule missed)", a.status)
	}
}

// TestChaosUntil: a rule ends at its Until; publishing no rules ends them
// all.
func TestChaosUntil(t *testing.T) {
	e := mustStartEnv(t)
	expired := rule("c0", forewarn.ChaosSpec{Status: 429, Fraction: 1, For: forewarn.Duration(time.Second)})
	expired.Until = epoch
	e.srv.PublishChaos([]*forewarn.ChaosRule{
		expired, rule("c1", forewarn.ChaosSpec{Scope: "web", Status: 500, Fraction: 1, For: forewarn.Duration(time.Minute)}),
	})
	checkAnswer(t, e.get(t, addrWeb0, eventsURL("2020-07-01")), http.StatusInternalServerError, bodyInternal)
	e.clock.Advance(time.Minute - time.Millisecond)
	checkAnswer(t, e.get(t, addrWeb0, eventsURL("2020-07-01")), http.StatusInternalServerError, bodyInternal)
	e.clock.Advance(time.Millisecond)
	if a := e.get(t, addrWeb0, eventsURL("2020-07-01")); a.status != http.StatusOK {
		t.Errorf("at Until: status %d %s, want 200", a.status, a.body)
	}

	e.srv.PublishChaos([]*forewarn.ChaosRule{nil, rule("c2", forewarn.ChaosSpec{Status: 500, Fraction: 1, For: 2 * hour})})
	checkAnswer(t, e.get(t, addrWeb0, eventsURL("2020-07-01")), http.StatusInternalServerError, bodyInternal)
	e.srv.PublishChaos(nil)
	if a := e.get(t, addrWeb0, eventsURL("2020-07-01")); a.status != http.StatusOK {
		t.Errorf("after publishing no rules: status %d, want 200", a.status)
	}
}

// TestChaosChangesNothing: a hit neither approves nor enables.
func TestChaosChangesNothing(t *testing.T) {
	e := mustStartEnv(t)
	e.srv.PublishChaos([]*forewarn.ChaosRule{rule("c1", forewarn.ChaosSpec{Scope: "web", Status: 500, Fraction: 1, For: hour})})
	checkAnswer(t, e.post(t, addrWeb0, eventsURL("2020-07-01"), approveOneBody), http.StatusInternalServerError, bodyInternal)
	checkAnswer(t, e.get(t, addrWeb1, eventsURL("2020-07-01")), http.StatusInternalServerError, bodyInternal)
	if got := e.meta.approvalsMade(); len(got) != 0 {
		t.Errorf("a hit approved %v", got)
	}
	if got := e.meta.enabledScopes(); len(got) != 0 {
		t.Errorf("a hit enabled %v", got)
	}
}

// TestChaosBeforeRateLimit: a hit takes no token of the rate limit.
func TestChaosBeforeRateLimit(t *testing.T) {
	e := mustStartEnv(t, withRateLimit(1)) // burst 2
	e.srv.PublishChaos([]*forewarn.ChaosRule{rule("c1", forewarn.ChaosSpec{VM: "web-0", Status: 410, Fraction: 1, For: hour})})
	for range 10 {
		checkAnswer(t, e.get(t, addrWeb0, eventsURL("2020-07-01")), http.StatusGone, bodyGone)
	}
	e.srv.PublishChaos(nil)
	for i := range 2 {
		if a := e.get(t, addrWeb0, eventsURL("2020-07-01")); a.status != http.StatusOK {
			t.Fatalf("request %d after the rule: status %d, want 200", i, a.status)
		}
	}
	checkAnswer(t, e.get(t, addrWeb0, eventsURL("2020-07-01")), http.StatusTooManyRequests, bodyTooMany)
}

// TestChaosDelay: a delay holds the request on the clock, then serves it:
// the GET enables and answers the document, the POST approves.
func TestChaosDelay(t *testing.T) {
	e := mustStartEnv(t)
	e.srv.PublishChaos([]*forewarn.ChaosRule{rule("c1", forewarn.ChaosSpec{Scope: "web",
		Delay: forewarn.Duration(30 * time.Second), Fraction: 1, For: hour})})
	get := async(func() answer { return e.get(t, addrWeb0, eventsURL("2020-07-01")) })
	post := async(func() answer { return e.post(t, addrWeb1, eventsURL("2020-07-01"), approveOneBody) })
	e.waitHeld(t, 2)
	e.clock.Advance(30*time.Second - time.Millisecond)
	mustNotAnswer(t, get)
	mustNotAnswer(t, post)
	if got := e.meta.enabledScopes(); len(got) != 0 {
		t.Errorf("enabled during the delay: %v", got)
	}
	e.clock.Advance(time.Millisecond)
	a := receive(t, get)
	if a.status != http.StatusOK || !strings.HasPrefix(a.body, `{"DocumentIncarnation":4,`) {
		t.Errorf("delayed GET: %d %s", a.status, a.body)
	}
	checkAnswer(t, receive(t, post), http.StatusOK, bodyApproved)
	if got := e.meta.approvalsMade(); len(got) != 1 || got[0].vm != "web-1" {
		t.Errorf("approvals after the delay: %v", got)
	}
	if got := chaosCount(t, e.reg, "delay"); got != 2 {
		t.Errorf("chaos_total{fault=delay} = %v, want 2", got)
	}
}

// TestChaosDelayThenStatus: a rule with both holds, then answers its
// status.
func TestChaosDelayThenStatus(t *testing.T) {
	e := mustStartEnv(t)
	e.srv.PublishChaos([]*forewarn.ChaosRule{rule("c1", forewarn.ChaosSpec{VM: "web-0", Status: 410,
		Delay: forewarn.Duration(5 * time.Second), Fraction: 1, For: hour})})
	got := async(func() answer { return e.get(t, addrWeb0, eventsURL("2020-07-01")) })
	e.waitHeld(t, 1)
	mustNotAnswer(t, got)
	e.clock.Advance(5 * time.Second)
	checkAnswer(t, receive(t, got), http.StatusGone, bodyGone)
	if got := chaosCount(t, e.reg, "410"); got != 1 {
		t.Errorf("chaos_total{fault=410} = %v, want 1", got)
	}
}

// TestChaosDelayEndsAtShutdown: Shutdown ends a delay and the request is
// served.
func TestChaosDelayEndsAtShutdown(t *testing.T) {
	e := mustStartEnv(t)
	e.srv.PublishChaos([]*forewarn.ChaosRule{rule("c1", forewarn.ChaosSpec{Delay: forewarn.Duration(time.Hour), Fraction: 1, For: hour})})
	got := async(func() answer {
		return e.get(t, addrWeb0, "/metadata/instance/compute/name?api-version=2021-02-01&format=text")
	})
	e.waitHeld(t, 1)
	e.srv.Shutdown()
	checkAnswer(t, receive(t, got), http.StatusOK, "web-0")
	// After Shutdown, a delay ends at once.
	checkAnswer(t, e.get(t, addrWeb1, "/metadata/instance/compute/name?api-version=2021-02-01&format=text"),
		http.StatusOK, "web-1")
}

// TestChaosDelayClientGone: a client that leaves during a delay abandons
// the request; it is not served afterwards.
func TestChaosDelayClientGone(t *testing.T) {
	e := mustStartEnv(t)
	e.srv.PublishChaos([]*forewarn.ChaosRule{rule("c1", forewarn.ChaosSpec{Delay: forewarn.Duration(time.Hour), Fraction: 1, For: hour})})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := e.call(t, ctx, addrWeb0, http.MethodPost, eventsURL("2020-07-01"), strings.NewReader(approveOneBody),
			"Metadata", "true")
		done <- err
	}()
	e.waitHeld(t, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled request: %v", err)
	}
	// Close waits for the handler to return.
	closed := make(chan struct{})
	go func() { e.close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler still holds the abandoned request")
	}
	if got := e.meta.approvalsMade(); len(got) != 0 {
		t.Errorf("an abandoned request approved %v", got)
	}
	if got := counterValue(t, e.reg, pathEvents, "none"); got != 1 {
		t.Errorf("requests{code=none} = %v, want 1", got)
	}
}

// TestChaosDelayedVMDeleted: a VM deleted during the delay gets its 403.
func TestChaosDelayedVMDeleted(t *testing.T) {
	e := mustStartEnv(t)
	e.srv.PublishChaos([]*forewarn.ChaosRule{rule("c1", forewarn.ChaosSpec{VM: "web-0",
		Delay: forewarn.Duration(time.Minute), Fraction: 1, For: hour})})
	got := async(func() answer { return e.get(t, addrWeb0, eventsURL("2020-07-01")) })
	e.waitHeld(t, 1)
	snap := webSnapshot(5)
	snap.VMs = snap.VMs[1:]
	e.publish(snap)
	e.clock.Advance(time.Minute)
	checkAnswer(t, receive(t, got), http.StatusForbidden, `{"error":"Forbidden. The address 127.0.0.2 belongs to no VM"}`)
}

func TestChaosError(t *testing.T) {
	for status, want := range map[int]int{0: 0, 200: 0, 302: 0, 410: 410, 429: 429, 500: 500, 503: 503, 599: 599, 600: 0} {
		e := chaosError(status)
		if got := 0; e != nil {
			got = e.status
			if got != want || e.msg == "" {
				t.Errorf("chaosError(%d) = %d %q, want %d", status, got, e.msg, want)
			}
		} else if want != 0 {
			t.Errorf("chaosError(%d) = nil, want %d", status, want)
		}
	}
}

// TestChaosDelayedPostTooLarge: a delayed POST over the limit is still
// refused with 413, and approves nothing.
func TestChaosDelayedPostTooLarge(t *testing.T) {
	e := mustStartEnv(t)
	e.srv.PublishChaos([]*forewarn.ChaosRule{rule("c1", forewarn.ChaosSpec{Delay: forewarn.Duration(time.Second), Fraction: 1, For: hour})})
	body := approveOneBody + strings.Repeat(" ", 2*maxBody)
	got := async(func() answer { return e.post(t, addrWeb0, eventsURL("2020-07-01"), body) })
	e.waitHeld(t, 1)
	e.clock.Advance(time.Second)
	if a := receive(t, got); a.status != http.StatusRequestEntityTooLarge {
		t.Errorf("status %d %s, want 413", a.status, a.body)
	}
	if got := e.meta.approvalsMade(); len(got) != 0 {
		t.Errorf("approved %v", got)
	}
}

// TestReadAhead: the handler reads the body read ahead, and its error.
func TestReadAhead(t *testing.T) {
	cut := io.MultiReader(strings.NewReader("abc"), errReader{io.ErrUnexpectedEOF})
	r := httptest.NewRequest(http.MethodPost, pathEvents, cut)
	readAhead(r)
	b, err := io.ReadAll(r.Body)
	if string(b) != "abc" || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("read %q, %v; want abc and the error", b, err)
	}
	long := strings.Repeat("x", maxBody+10)
	r = httptest.NewRequest(http.MethodPost, pathEvents, strings.NewReader(long))
	readAhead(r)
	if b, err := io.ReadAll(r.Body); string(b) != long || err != nil {
		t.Errorf("read %d bytes, %v; want %d", len(b), err, len(long))
	}
}

// TestChaosDelayEndsWithItsRule: a delay longer than what is left of its
// rule holds the answer only until the rule ends.
func TestChaosDelayEndsWithItsRule(t *testing.T) {
	e := mustStartEnv(t)
	r := rule("c1", forewarn.ChaosSpec{VM: "web-0", Delay: forewarn.Duration(time.Hour), Fraction: 1, For: forewarn.Duration(10 * time.Second)})
	e.srv.PublishChaos([]*forewarn.ChaosRule{r})
	got := async(func() answer { return e.get(t, addrWeb0, eventsURL("2020-07-01")) })
	e.waitHeld(t, 1)
	e.clock.Advance(r.Until.Sub(e.clock.Now()) - time.Millisecond)
	mustNotAnswer(t, got)
	e.clock.Advance(time.Millisecond)
	if a := receive(t, got); a.status != http.StatusOK {
		t.Errorf("the GET once its rule ended: %d %s", a.status, a.body)
	}
}
