package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
)

// testSoakLayout is the fleet of the soak tests: 3 scopes of 4 VMs over
// 2 update domains.
var testSoakLayout = layout{prefix: "soak", scopes: 3, vms: 4, updateDomains: 2, base: mustAddr("127.3.2.1")}

// testSoakOptions are options for a short soak of the stack s: VMs polling
// every 500 ms for a warm-up of 1.5 s and a soak of 3 s, a user operation
// every 200 ms. At a time scale of 600, a Reboot's notice is 1.5 s.
func testSoakOptions(s *testStack, tokenFile string) soakOptions {
	p := testPollOptions(s.metaURL)
	p.layout, p.approve, p.burstSize = testSoakLayout, 0.5, 25
	return soakOptions{poll: p, admin: s.adminURL, tokenFile: tokenFile, json: true, warmup: 1500 * time.Millisecond, burstEvery: 3 * time.Second,
		opEvery: 200 * time.Millisecond, collectEvery: time.Second, lag: time.Second, logEvery: time.Minute,
		settle: settleOptions{wait: 100 * time.Millisecond, every: 100 * time.Millisecond, samples: 3},
		// The test's process is serve and the load at once: the load's
		// records grow its heap.
		growth: growth{goroutines: 50, goroutinesPct: 10, heapPct: 100, heapMB: 64}}
}

// testSoakArgs is the command line of testSoakOptions.
func testSoakArgs(s *testStack, tokenFile string) []string {
	return []string{"soak", "-prefix", "soak", "-scopes", "3", "-vms", "4", "-update-domains", "2", "-base", "127.3.2.1",
		"-url", s.metaURL, "-admin", s.adminURL, "-token-file", tokenFile, "-interval", "500ms", "-timeout", "5s",
		"-approve", "0.5", "-burst-vms", "2", "-burst-size", "25", "-target", "1s", "-warmup", "1.5s", "-duration", "3s", "-burst-every", "3s",
		"-op-every", "200ms", "-collect-every", "1s", "-lag", "1s", "-log-every", "1m",
		"-settle", "100ms", "-sample-every", "100ms", "-samples", "3", "-gc-wait", "0",
		"-heap-growth-pct", "100", "-heap-growth-mb", "64", "-json"}
}

// TestSoak soaks serve's real parts, in-process, from the command line:
// no error, every event of a scope seen by its VMs while they polled,
// every approval started, the campaigns' events as many as their progress
// counts.
func TestSoak(t *testing.T) {
	s := newTestStack(t, testSoakLayout, 600)
	token := filepath.Join(t.TempDir(), "admin.token")
	if err := os.WriteFile(token, []byte(testToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := testSoakArgs(s, token)
	if o, err := parseSoak(args[1:], io.Discard); err != nil || !reflect.DeepEqual(o, testSoakOptions(s, token)) {
		t.Fatalf("%v:\n%+v\n%+v", err, o, testSoakOptions(s, token))
	}
	var stdout, stderr strings.Builder
	if code := run(t.Context(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, stderr.String())
	}
	var r soakResult
	if err := json.Unmarshal([]byte(stdout.String()), &r); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	summary := stderr.String()
	if r.failed() || !r.Pass {
		t.Fatalf("failed:\n%s", summary)
	}
	e := r.Events
	if e.Events == 0 || e.Pairs != e.Events*4 || e.Due == 0 || e.Seen < e.Due || e.Hit == 0 || e.HitDueScheduled == 0 ||
		e.HitSeenScheduled < e.HitDueScheduled || e.Due+e.NotDue != e.Pairs || e.FirstSeen.Count != e.Seen {
		t.Errorf("events %+v\n%s", e, summary)
	}
	if r.Approvals.Approvals == 0 || r.Approvals.Started != r.Approvals.Approvals || r.Poll.Approvals != r.Approvals.Approvals {
		t.Errorf("approvals %+v, the poll's %d", r.Approvals, r.Poll.Approvals)
	}
	m := r.Maintenance
	if len(m.Campaigns) == 0 || len(r.Campaigns) != len(m.Campaigns) || m.Operations == 0 || e.ByCampaign == 0 {
		t.Errorf("maintenance %+v, campaigns %+v", m, r.Campaigns)
	}
	if g := r.Growth; g.Before.Samples != 3 || g.After.Samples != 3 || g.Before.Goroutines == 0 || g.After.HeapInuseMB == 0 {
		t.Errorf("growth %+v", g)
	}
	if r.Poll.Intended429 == 0 || r.Poll.DurationS != 4.5 {
		t.Errorf("poll %+v", r.Poll)
	}
	for _, want := range []string{"soak: a warm-up of 1.5s, then 3s", "0 lost;", "stale answers (behind what the scope had been shown): 0", "growth: goroutines", "PASS: no lost"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary without %q:\n%s", want, summary)
		}
	}
}

// hidingFleet is the admin API with one event of a campaign missing from
// its listings, as if the server had lost it.
type hidingFleet struct {
	*admin.Client
	mu     sync.Mutex
	hidden string
}

// hide drops the hidden event from events, choosing it if not yet chosen.
func (h *hidingFleet) hide(events []*forewarn.Event) []*forewarn.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []*forewarn.Event
	for _, e := range events {
		if h.hidden == "" && e.Campaign != "" {
			h.hidden = e.ID
		}
		if e.ID != h.hidden {
			out = append(out, e)
		}
	}
	return out
}

func (h *hidingFleet) Events(ctx context.Context, q forewarn.EventQuery) ([]*forewarn.Event, string, error) {
	events, next, err := h.Client.Events(ctx, q)
	return h.hide(events), next, err
}

func (h *hidingFleet) History(ctx context.Context, limit int) ([]*forewarn.Event, error) {
	events, err := h.Client.History(ctx, limit)
	return h.hide(events), err
}

// TestSoakLostEvent: an event of a campaign the admin API does not report
// fails the soak: its campaign does not add up, and the VMs that saw it
// saw an unknown event.
func TestSoakLostEvent(t *testing.T) {
	s := newTestStack(t, testSoakLayout, 600)
	o := testSoakOptions(s, "")
	o.warmup, o.poll.duration = 500*time.Millisecond, 2*time.Second
	h := &hidingFleet{Client: s.client}
	r, err := soak(t.Context(), o, h, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r.summary(&out)
	if !r.failed() || r.Pass || r.badCampaigns() != 1 || r.Events.Unknown > 1 || h.hidden == "" {
		t.Fatalf("hid %s:\n%s", h.hidden, out.String())
	}
	if !strings.Contains(out.String(), "events expected") || !strings.Contains(out.String(), "FAIL: no lost") {
		t.Errorf("summary:\n%s", out.String())
	}
}

func TestParseSoak(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "-admin \"\": want http://HOST:PORT"},
		{[]string{"-admin", "127.0.0.1:1"}, "want http://HOST:PORT"},
		{[]string{"-admin", "http://127.0.0.1:1/v1"}, "want http://HOST:PORT"},
		{[]string{"-admin", "http://127.0.0.1:1", "-warmup", "10ms"}, "-warmup 10ms: want at least the interval"},
		{[]string{"-admin", "http://127.0.0.1:1", "-burst-every", "1s"}, "bursts need at least two intervals"},
		{[]string{"-admin", "http://127.0.0.1:1", "-samples", "0"}, "-samples 0"},
		{[]string{"-admin", "http://127.0.0.1:1", "-lag", "-1s"}, "must not be negative"},
		{[]string{"-admin", "http://127.0.0.1:1", "-op-every", "0s"}, "must be more than 0"},
		{[]string{"-admin", "http://127.0.0.1:1", "-heap-growth-pct", "-1"}, "must not be negative"},
	} {
		_, err := parseSoak(append([]string{"-url", "http://127.0.0.1:1"}, tt.args...), io.Discard)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want a usage error with %q", tt.args, err, tt.want)
		}
	}
	o, err := parseSoak([]string{"-url", "http://127.0.0.1:1", "-admin", "http://127.0.0.1:2"}, io.Discard)
	if err != nil || o.poll.duration != 10*time.Minute || o.warmup != time.Minute || o.settle.gcWait != 130*time.Second {
		t.Errorf("defaults %+v, %v", o, err)
	}
	// A token is needed: exit code 2.
	t.Setenv("FOREWARN_TOKEN", "")
	var stderr strings.Builder
	if code := run(t.Context(), []string{"soak", "-url", "http://127.0.0.1:1", "-admin", "http://127.0.0.1:2"}, io.Discard, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), "no admin token") {
		t.Errorf("exit code %d: %s", code, stderr.String())
	}
}
