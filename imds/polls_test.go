package imds

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// mustPolls returns the poll record of a scope, failing the test on an
// error.
func mustPolls(tb testing.TB, s *Server, scope string) []*forewarn.VMPolls {
	tb.Helper()
	polls, err := s.Polls(tb.Context(), scope)
	if err != nil {
		tb.Fatalf("Polls(%s): %v", scope, err)
	}
	return polls
}

// pollsOf returns the record of one VM of a scope.
func pollsOf(tb testing.TB, s *Server, scope, vm string) *forewarn.VMPolls {
	tb.Helper()
	for _, p := range mustPolls(tb, s, scope) {
		if p.VM == vm {
			return p
		}
	}
	tb.Fatalf("Polls(%s) has no VM %s", scope, vm)
	return nil
}

// seenIDs returns the events of the sightings, in their order.
func seenIDs(p *forewarn.VMPolls) []string {
	ids := make([]string, len(p.Seen))
	for i, s := range p.Seen {
		ids[i] = s.Event
	}
	return ids
}

func TestPollsCountAnswersOnly(t *testing.T) {
	e := mustStartEnv(t)
	if p := pollsOf(t, e.srv, "web", "web-0"); p.Polls != 0 || !p.FirstPoll.IsZero() || !p.LastPoll.IsZero() || p.Seen != nil {
		t.Fatalf("before any poll: %+v", p)
	}
	t0 := e.clock.Now()
	if a := e.get(t, addrWeb0, eventsURL("2020-07-01")); a.status != http.StatusOK {
		t.Fatalf("GET: %d %s", a.status, a.body)
	}
	e.clock.Advance(time.Minute)
	if a := e.get(t, addrWeb0, eventsURL("2020-07-01"), "If-None-Match", `"4"`); a.status != http.StatusNotModified {
		t.Fatalf("GET with If-None-Match: %d %s", a.status, a.body)
	}
	e.clock.Advance(time.Minute)
	if a := e.get(t, addrWeb0, eventsURL("2020-07-01", "wait_for_change=true", `last_etag="3"`)); a.status != http.StatusOK {
		t.Fatalf("stale long-poll: %d %s", a.status, a.body)
	}
	t2 := e.clock.Now()
	e.clock.Advance(time.Minute)
	for _, c := range []struct {
		src, target string
		status      int
	}{
		{addrUnknown, eventsURL("2020-07-01"), http.StatusForbidden},
		{addrWeb0, eventsURL("2099-01-01"), http.StatusBadRequest},
		{addrWeb0, "/metadata/instance?api-version=2021-02-01", http.StatusOK},
		{addrWeb0, "/metadata/versions", http.StatusOK},
	} {
		if a := e.get(t, c.src, c.target); a.status != c.status {
			t.Fatalf("GET %s from %s: %d, want %d: %s", c.target, c.src, a.status, c.status, a.body)
		}
	}
	if a := e.post(t, addrWeb0, eventsURL("2020-07-01"), `{"StartRequests":[{"EventId":"`+idRebootScheduled+`"}]}`); a.status != http.StatusOK {
		t.Fatalf("POST: %d %s", a.status, a.body)
	}

	p := pollsOf(t, e.srv, "web", "web-0")
	if p.Polls != 3 || !p.FirstPoll.Equal(t0) || !p.LastPoll.Equal(t2) {
		t.Errorf("web-0: %d polls from %v to %v, want 3 from %v to %v", p.Polls, p.FirstPoll, p.LastPoll, t0, t2)
	}
	if p.Scope != "web" {
		t.Errorf("web-0: scope %q", p.Scope)
	}
	if p := pollsOf(t, e.srv, "web", "web-1"); p.Polls != 0 {
		t.Errorf("web-1 never polled, has %d polls", p.Polls)
	}
}

func TestPollsFirstSightings(t *testing.T) {
	e := mustStartEnv(t)
	t0 := e.clock.Now()
	// 2017-03-01 shows neither Preempt nor Terminate.
	e.get(t, addrWeb0, eventsURL("2017-03-01"))
	classic := []string{idFreezeScheduled, idFreezeStarted, idRebootScheduled, idRebootStarted,
		idRedeployScheduled, idRedeployStarted}
	checkSeen(t, pollsOf(t, e.srv, "web", "web-0"), classic, t0)

	e.clock.Advance(time.Minute)
	t1 := e.clock.Now()
	e.get(t, addrWeb0, eventsURL("2017-03-01"))
	e.get(t, addrWeb0, eventsURL("2020-07-01"))
	e.clock.Advance(time.Minute)
	e.get(t, addrWeb0, eventsURL("2020-07-01"))
	later := []string{idPreemptScheduled, idPreemptStarted, idTerminateScheduled, idTerminateStarted}
	p := pollsOf(t, e.srv, "web", "web-0")
	checkSeen(t, &forewarn.VMPolls{Seen: p.Seen[:len(classic)]}, classic, t0)
	checkSeen(t, &forewarn.VMPolls{Seen: p.Seen[len(classic):]}, later, t1)

	// A new snapshot with one new event: only that one is new.
	e.clock.Advance(time.Minute)
	t3 := e.clock.Now()
	snap := webSnapshot(5)
	added := &forewarn.Event{ID: "new-reboot", Type: forewarn.Reboot, Status: forewarn.Scheduled,
		Scope: "web", Resources: []string{"web-0"}, CreatedAt: epoch}
	snap.Events = append(snap.Events, added)
	e.publish(snap)
	e.get(t, addrWeb0, eventsURL("2020-07-01"), "If-None-Match", `"4"`)
	p = pollsOf(t, e.srv, "web", "web-0")
	if p.Polls != 5 {
		t.Errorf("%d polls, want 5", p.Polls)
	}
	checkSeen(t, &forewarn.VMPolls{Seen: p.Seen[:len(classic)]}, classic, t0)
	checkSeen(t, &forewarn.VMPolls{Seen: p.Seen[len(classic) : len(classic)+len(later)]}, later, t1)
	checkSeen(t, &forewarn.VMPolls{Seen: p.Seen[len(classic)+len(later):]}, []string{"new-reboot"}, t3)
}

// checkSeen checks that p saw exactly the events ids, in that order, at.
func checkSeen(tb testing.TB, p *forewarn.VMPolls, ids []string, at time.Time) {
	tb.Helper()
	want := make([]string, len(ids))
	for i, id := range ids {
		want[i] = strings.ToLower(id)
	}
	if got := seenIDs(p); fmt.Sprint(got) != fmt.Sprint(want) {
		tb.Fatalf("seen %v, want %v", got, want)
	}
	for _, s := range p.Seen {
		if !s.At.Equal(at) {
			tb.Errorf("event %s seen at %v, want %v", s.Event, s.At, at)
		}
	}
}

func TestPollsListEveryVM(t *testing.T) {
	e := mustStartEnv(t)
	e.get(t, addrWeb1, eventsURL("2020-07-01"))
	snap := webSnapshot(5)
	// web-2 has no address, so it cannot poll; it is listed all the same.
	snap.VMs = append([]*forewarn.VM{{Name: "web-2", Scope: "web", CreatedAt: epoch}}, snap.VMs...)
	e.publish(snap)
	var got []string
	for _, p := range mustPolls(t, e.srv, "web") {
		got = append(got, p.VM+":"+strconv.FormatInt(p.Polls, 10))
	}
	if want := "[web-0:0 web-1:1 web-2:0]"; fmt.Sprint(got) != want {
		t.Errorf("polls %v, want %s (in name order, web-1's kept across the publish)", got, want)
	}
}

func TestPollsDropLeavers(t *testing.T) {
	e := mustStartEnv(t)
	e.get(t, addrWeb0, eventsURL("2020-07-01"))
	e.get(t, addrWeb1, eventsURL("2020-07-01"))
	snap := webSnapshot(5)
	snap.VMs = snap.VMs[1:] // web-0 deleted
	e.publish(snap)
	polls := mustPolls(t, e.srv, "web")
	if len(polls) != 1 || polls[0].VM != "web-1" || polls[0].Polls != 1 {
		t.Fatalf("after web-0 left: %+v", polls)
	}
	// Back under the same name, it is a new VM.
	e.publish(webSnapshot(6))
	if p := pollsOf(t, e.srv, "web", "web-0"); p.Polls != 0 || p.Seen != nil {
		t.Errorf("web-0 back: %+v, want a fresh record", p)
	}

	e.srv.RemoveScope("web")
	if _, err := e.srv.Polls(t.Context(), "web"); !errors.Is(err, forewarn.ErrNotFound) {
		t.Errorf("Polls of a removed scope: %v, want ErrNotFound", err)
	}
	if _, err := e.srv.Polls(t.Context(), "nowhere"); !errors.Is(err, forewarn.ErrNotFound) {
		t.Errorf("Polls of an unknown scope: %v, want ErrNotFound", err)
	}
}

func TestPollsBoundEndedSightings(t *testing.T) {
	e := mustStartEnv(t)
	// Each snapshot has the two lasting events and one of its own, which
	// ends with it.
	lasting := []*forewarn.Event{
		{ID: "lasting-1", Type: forewarn.Freeze, Status: forewarn.Scheduled, Scope: "web"},
		{ID: "lasting-2", Type: forewarn.Freeze, Status: forewarn.Scheduled, Scope: "web"},
	}
	const n = 40
	for i := range n {
		snap := webSnapshot(int64(10 + i))
		snap.Events = append(lasting[:2:2], &forewarn.Event{ID: fmt.Sprintf("passing-%02d", i),
			Type: forewarn.Reboot, Status: forewarn.Scheduled, Scope: "web"})
		e.publish(snap)
		e.get(t, addrWeb0, eventsURL("2020-07-01"))
		e.clock.Advance(time.Second)
	}
	want := []string{"lasting-1", "lasting-2"}
	for i := n - maxEndedSightings - 1; i < n; i++ {
		want = append(want, fmt.Sprintf("passing-%02d", i))
	}
	if got := seenIDs(pollsOf(t, e.srv, "web", "web-0")); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("seen %v,\nwant %v", got, want)
	}
}

// TestPollsConcurrent polls from every VM while snapshots are published and
// the record read. Run under -race. Every answer must be counted once.
func TestPollsConcurrent(t *testing.T) {
	e := mustStartEnv(t)
	stop := make(chan struct{})
	var background sync.WaitGroup
	background.Go(func() {
		for inc := int64(5); ; inc++ {
			select {
			case <-stop:
				return
			default:
			}
			snap := webSnapshot(inc)
			snap.Events = snap.Events[:int(inc%10)]
			e.srv.PublishScope(snap)
		}
	})
	background.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, p := range mustPolls(t, e.srv, "web") {
				if len(p.Seen) > len(webEvents())+maxEndedSightings {
					t.Errorf("%s: %d sightings", p.VM, len(p.Seen))
				}
			}
		}
	})
	var pollers sync.WaitGroup
	answered := map[string]*atomic.Int64{addrWeb0: new(atomic.Int64), addrWeb1: new(atomic.Int64)}
	for src, count := range answered {
		for g := range 3 {
			pollers.Go(func() {
				for i := range 30 {
					v := eventVersions[(g+i)%len(eventVersions)].name
					if e.get(t, src, eventsURL(v)).status == http.StatusOK {
						count.Add(1)
					}
				}
			})
		}
	}
	pollers.Wait()
	close(stop)
	background.Wait()
	for src, vm := range map[string]string{addrWeb0: "web-0", addrWeb1: "web-1"} {
		if p := pollsOf(t, e.srv, "web", vm); p.Polls != answered[src].Load() {
			t.Errorf("%s: %d polls recorded, %d answered", vm, p.Polls, answered[src].Load())
		}
	}
}
