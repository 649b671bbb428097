package main

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// t0 is the time the synthetic records of the check tests count from.
var t0 = time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)

// at is t0 plus ms milliseconds.
func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// testPoller is a poller of VM i of l with no record yet.
func testPoller(l layout, i int) *poller {
	addrs, _ := l.addrs()
	return &poller{name: l.vmName(i), addr: addrs[i], rec: newRecord()}
}

// saw records a GET sent at ms and answered 10 ms later that showed events,
// "id:status" each.
func saw(p *poller, ms int, events ...string) {
	var evs []event
	for _, e := range events {
		id, status, _ := strings.Cut(e, ":")
		evs = append(evs, event{EventId: id, EventStatus: status})
	}
	p.rec.addDoc(evs)
	p.rec.addPoll(at(ms), at(ms+10))
}

// TestCheckEvents: each VM of the scope must show an event, as it was,
// when it polls inside its time in the document; a VM that polled then
// and never saw it lost it; one that did not poll then is not due.
func TestCheckEvents(t *testing.T) {
	l := layout{prefix: "s", scopes: 2, vms: 4, updateDomains: 2, base: mustAddr("127.3.3.1")}
	ps := make([]*poller, l.size())
	for i := range ps {
		ps[i] = testPoller(l, i)
	}
	// Event e hits s-0-0 and s-0-2: Scheduled from 1 s, Started at 4 s,
	// ended at 5 s. The lag is 500 ms.
	e := &forewarn.Event{ID: "e", Scope: "s-0", Resources: []string{"s-0-0", "s-0-2"}, Status: forewarn.Started,
		CreatedAt: at(1000), StartedAt: at(4000), EndedAt: at(5000), Outcome: forewarn.Completed}
	saw(ps[0], 1200)                // within the lag: not due
	saw(ps[0], 2000, "e:Scheduled") // due, right
	saw(ps[0], 4600, "e:Started")   // due, right
	saw(ps[1], 3000, "e:Scheduled") // due, right
	saw(ps[1], 4200, "e:Scheduled") // within the lag of the start: not stale
	saw(ps[2], 2500)                // due and not shown: stale, and lost
	saw(ps[2], 6000)                // after the end
	saw(ps[3], 4700, "e:Scheduled") // stale: started 700 ms before
	saw(ps[4], 2000, "x:Scheduled") // another scope, an unknown event
	saw(ps[3], 5100, "e:Started")   // after the end, within the lag: seen
	c := checkEvents(ps, l, map[string]*forewarn.Event{"e": e}, 500*time.Millisecond)
	want := eventCheck{Events: 1, Pairs: 4, Due: 4, Seen: 3, Lost: 1, Stale: 2, Hit: 2, HitDueScheduled: 2,
		HitSeenScheduled: 1, Unknown: 1, LateMs: 1500}
	got := c
	got.Samples, got.FirstSeen = nil, latency{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	// s-0-0 at 2 s, s-0-1 at 3 s, s-0-3 at 4.7 s, answered 10 ms later.
	if c.FirstSeen.Count != 3 || c.FirstSeen.P50 != 2010 || c.FirstSeen.Max != 3710 {
		t.Errorf("first seen %+v", c.FirstSeen)
	}
	all := strings.Join(c.Samples, "\n")
	for _, want := range []string{
		"s-0-2 (127.3.3.3) never saw event e",
		"s-0-2 (127.3.3.3) was shown event e not at all at Nov 25 10:00:02.510, 0.490 s after a VM of its scope was shown it Scheduled",
		"s-0-3 (127.3.3.4) was shown event e as Scheduled at Nov 25 10:00:04.710, 0.090 s after a VM of its scope was shown it Started",
		"s-1-0 saw event x, which the admin API does not report",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("samples without %q:\n%s", want, all)
		}
	}
	if !c.failed() {
		t.Error("not failed")
	}
}

// TestCheckEventsInFlight: an event still in flight at the end must show
// in every poll after its creation and the lag; one of another scope of
// the fleet (the host's own) is left out.
func TestCheckEventsInFlight(t *testing.T) {
	l := layout{prefix: "s", scopes: 1, vms: 2, updateDomains: 1, base: mustAddr("127.3.3.1")}
	ps := []*poller{testPoller(l, 0), testPoller(l, 1)}
	events := map[string]*forewarn.Event{
		"e":    {ID: "e", Scope: "S-0", Resources: []string{"s-0-1"}, Status: forewarn.Scheduled, CreatedAt: at(0)},
		"host": {ID: "host", Scope: "default", Resources: []string{"host"}, Status: forewarn.Scheduled, CreatedAt: at(0)},
	}
	for ms := 1000; ms <= 3000; ms += 1000 {
		saw(ps[0], ms, "e:Scheduled")
		saw(ps[1], ms, "e:Scheduled")
	}
	c := checkEvents(ps, l, events, 500*time.Millisecond)
	if c.failed() || c.Events != 1 || c.InFlight != 1 || c.Due != 2 || c.Seen != 2 || c.HitSeenScheduled != 1 {
		t.Fatalf("%+v", c)
	}
	saw(ps[1], 4000) // gone from the document while in flight
	if c := checkEvents(ps, l, events, 500*time.Millisecond); c.Stale != 1 || c.Lost != 0 {
		t.Errorf("%+v", c)
	}
}

// TestCheckApprovals: an approval answered 200 must have started its
// event by the answer.
func TestCheckApprovals(t *testing.T) {
	l := layout{prefix: "s", scopes: 1, vms: 1, updateDomains: 1, base: mustAddr("127.3.3.1")}
	p := testPoller(l, 0)
	p.rec.approved = []approval{{"ok", at(1000)}, {"late", at(1000)}, {"scheduled", at(1000)}, {"gone", at(1000)}}
	events := map[string]*forewarn.Event{
		"ok":        {ID: "ok", Status: forewarn.Started, StartedAt: at(990)},
		"late":      {ID: "late", Status: forewarn.Started, StartedAt: at(1500)},
		"scheduled": {ID: "scheduled", Status: forewarn.Scheduled},
	}
	c := checkApprovals([]*poller{p}, events)
	if c.Approvals != 4 || c.Started != 1 || c.Unreflected != 3 || len(c.Samples) != 3 ||
		!strings.Contains(c.Samples[2], "s-0-0 approved event gone (200), which the admin API does not report") {
		t.Errorf("%+v", c)
	}
}

// TestCheckCampaign: each update domain done that has VMs had an event,
// and so has each one in flight.
func TestCheckCampaign(t *testing.T) {
	l := layout{prefix: "s", scopes: 2, vms: 3, updateDomains: 5, base: mustAddr("127.3.3.1")}
	c := &forewarn.Campaign{ID: "c", Spec: forewarn.CampaignSpec{Type: forewarn.Reboot}, State: forewarn.CampaignPaused,
		Scopes: []forewarn.ScopeProgress{{Scope: "s-0", UpdateDomains: 5, Done: 5}, {Scope: "s-1", UpdateDomains: 5, Done: 1, Event: "e"}}}
	// s-0: update domains 0 to 2 have VMs; s-1: one done, one in flight.
	if r := checkCampaign(c, l, 5); !r.ok() || r.Expected != 5 || r.Domains != 6 {
		t.Errorf("%+v", r)
	}
	if r := checkCampaign(c, l, 4); r.ok() {
		t.Errorf("%+v", r)
	}
}

func TestGrowth(t *testing.T) {
	g := growth{goroutines: 50, goroutinesPct: 10, heapPct: 20, heapMB: 8}
	for _, c := range []struct {
		before, after settled
		limitG        int
		limitHeap     float64
		ok            bool
	}{
		{settled{Goroutines: 11, HeapInuseMB: 10}, settled{Goroutines: 61, HeapInuseMB: 20}, 61, 20, true},
		{settled{Goroutines: 11, HeapInuseMB: 10}, settled{Goroutines: 62, HeapInuseMB: 10}, 61, 20, false},
		{settled{Goroutines: 11, HeapInuseMB: 10}, settled{Goroutines: 11, HeapInuseMB: 20.01}, 61, 20, false},
		{settled{Goroutines: 2000, HeapInuseMB: 100}, settled{Goroutines: 2200, HeapInuseMB: 128}, 2200, 128, true},
	} {
		r := g.check(c.before, c.after)
		if r.GoroutinesLimit != c.limitG || r.HeapLimitMB != c.limitHeap || r.OK != c.ok {
			t.Errorf("%+v -> %+v: %+v", c.before, c.after, r)
		}
	}
}
