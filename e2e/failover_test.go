package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// failoverFleet has three scopes for the campaign, of two or three update
// domains, and one for user operations. The VMs of web and api approve
// their events through metadata POSTs; db's events wait for NotBefore.
const failoverFleet = `scopes:
  - name: web
    updateDomains: 3
    vms:
      - {name: web-0, updateDomain: 0, addresses: [127.0.0.11]}
      - {name: web-1, updateDomain: 1, addresses: [127.0.0.12]}
      - {name: web-2, updateDomain: 2, addresses: [127.0.0.13]}
      - {name: web-3, updateDomain: 2, addresses: [127.0.0.14]}
  - name: api
    updateDomains: 3
    vms:
      - {name: api-0, updateDomain: 0, addresses: [127.0.0.21]}
      - {name: api-1, updateDomain: 1, addresses: [127.0.0.22]}
      - {name: api-2, updateDomain: 2, addresses: [127.0.0.23]}
  - name: db
    updateDomains: 2
    vms:
      - {name: db-0, updateDomain: 0, addresses: [127.0.0.31]}
      - {name: db-1, updateDomain: 1, addresses: [127.0.0.32]}
  - name: ops
    updateDomains: 1
    vms:
      - {name: ops-0, addresses: [127.0.0.41]}
      - {name: ops-1, addresses: [127.0.0.42]}
      - {name: ops-2, addresses: [127.0.0.43]}
`

// failoverVM is a VM of failoverFleet: its name and its address.
type failoverVM struct{ name, addr string }

// failoverWatched are the VMs the pollers ask as, one per scope.
var failoverWatched = []failoverVM{{"web-0", "127.0.0.11"}, {"api-0", "127.0.0.21"},
	{"db-0", "127.0.0.31"}, {"ops-0", "127.0.0.41"}}

// failoverOps are the VMs of the user operations; the last one never
// approves, so its events start at their NotBefore.
var failoverOps = []failoverVM{{"ops-0", "127.0.0.41"}, {"ops-1", "127.0.0.42"}, {"ops-2", "127.0.0.43"}}

// How often the goroutines of TestFailover act.
const (
	failoverPollEvery    = 25 * time.Millisecond  // a GET per replica
	failoverApproveEvery = 50 * time.Millisecond  // an approver's look at its document
	failoverObserveEvery = 100 * time.Millisecond // a look at every event through the admin API
	failoverOperateEvery = 700 * time.Millisecond // a user operation
)

// TestFailover: three replicas on a real three-member etcd cluster carry a
// campaign and user operations through kill -9 of the leading replica, then
// of etcd's raft leader. The campaign completes; every acknowledged event
// and approval ends in the history, no event starts twice or before its
// NotBefore unless the test approved it, no replica ever answers an older
// document than one it answered before, and the survivors' metadata GETs
// never fail. It logs what it measured on one line,
// "failover: takeover=... get-error-window=... ...", for scripts/failover.sh.
func TestFailover(t *testing.T) {
	ctx := context.Background()
	c := clusterStart(t, clusterBinary(t))
	tokenFile, fleetFile := replicaFiles(t, "e2e-failover-token", failoverFleet)
	store := fmt.Sprintf("etcd://%s/failover-%d", c.endpoints(), rand.Int64())
	replicas := []*server{startReplica(t, store, tokenFile, fleetFile),
		startReplica(t, store, tokenFile, fleetFile), startReplica(t, store, tokenFile, fleetFile)}
	leader := failoverLeader(t, replicas)
	r := newFailoverRun(t, replicas, leader)
	r.pollAll()

	asked := time.Now()
	camp, err := r.survivors[0].admin.StartCampaign(ctx, forewarn.CampaignSpec{
		Type: forewarn.Reboot, Scopes: []string{"web", "api", "db"}, ParallelScopes: 3})
	if err != nil {
		t.Fatal(err)
	}
	r.ledger.campaign(camp.ID, asked)
	r.work.spawn(func(ctx context.Context) { r.approve(ctx, failoverVM{"web-0", "127.0.0.11"}, 0) })
	r.work.spawn(func(ctx context.Context) { r.approve(ctx, failoverVM{"api-0", "127.0.0.21"}, 2*time.Second) })
	r.work.spawn(r.observe)
	r.ops.spawn(r.operate)
	r.waitDone(camp.ID, "an update domain done before the kill", func(done int) bool { return done >= 1 })

	takeover := r.killLeader()
	atTakeover := r.done(camp.ID)
	r.waitDone(camp.ID, "the new leader moving the campaign on", func(done int) bool { return done > atTakeover })
	healthy := time.Now() // until now etcd had all its members
	victim, election := c.killLeader(t)
	r.waitOperated("user operations in etcd's new term", 2)
	r.ops.stopWait()

	r.waitCampaign(camp.ID)
	r.work.stopWait()
	r.drain()
	r.converge()
	r.polls.stopWait()
	r.checkHistory(camp.ID)
	r.report(takeover, election, victim, healthy)
}

// failoverLeader waits until one of the replicas leads the time-driven work
// and returns it.
func failoverLeader(t *testing.T, replicas []*server) *server {
	t.Helper()
	var leader *server
	eventually(t, 30*time.Second, "a leading replica", func() bool {
		for _, s := range replicas {
			if strings.Contains(s.log.String(), leadingLine) {
				leader = s
				return true
			}
		}
		return false
	})
	return leader
}

// failoverRun is what the goroutines of one TestFailover share: the
// replicas, what each replica answered, and what the test was told.
type failoverRun struct {
	t         *testing.T
	leader    *server
	survivors []*server
	probes    map[*server]*failoverProbe
	clients   map[string]*http.Client // by VM address
	ledger    *failoverLedger

	// The groups of goroutines, stopped in turn: user operations,
	// approvers and observer, pollers of the survivors.
	ops, work, polls *failoverGroup
	leaderPoll       *failoverGroup
}

// newFailoverRun prepares a run whose leading replica is leader; its
// goroutines are stopped at the end of the test at the latest.
func newFailoverRun(t *testing.T, replicas []*server, leader *server) *failoverRun {
	r := &failoverRun{t: t, leader: leader, probes: map[*server]*failoverProbe{},
		clients: map[string]*http.Client{}, ledger: newFailoverLedger(),
		ops: newFailoverGroup(), work: newFailoverGroup(), polls: newFailoverGroup(), leaderPoll: newFailoverGroup()}
	for i, s := range replicas {
		r.probes[s] = newFailoverProbe(fmt.Sprintf("replica %d (%s)", i, s.metaAddr))
		if s != leader {
			r.survivors = append(r.survivors, s)
		}
	}
	for _, vm := range slices.Concat(failoverWatched, failoverOps) {
		r.clients[vm.addr] = from(t, vm.addr)
	}
	t.Cleanup(func() { // if the test failed early
		for _, g := range []*failoverGroup{r.ops, r.work, r.polls, r.leaderPoll} {
			g.stopWait()
		}
	})
	return r
}

// failoverGroup is a group of goroutines stopped together.
type failoverGroup struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// newFailoverGroup returns a group with no goroutine yet.
func newFailoverGroup() *failoverGroup {
	ctx, cancel := context.WithCancel(context.Background())
	return &failoverGroup{ctx: ctx, cancel: cancel}
}

// stopWait stops the group's goroutines and waits for them.
func (g *failoverGroup) stopWait() {
	g.cancel()
	g.wg.Wait()
}

// spawn runs fn in a goroutine of g, with a context that ends when g
// stops.
func (g *failoverGroup) spawn(fn func(context.Context)) {
	g.wg.Go(func() { fn(g.ctx) })
}

// failoverSleep waits d unless ctx ends first; false if it ended.
func failoverSleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// pollAll starts a poller on every replica, the leader's in a group of its
// own, stopped before the kill.
func (r *failoverRun) pollAll() {
	for s := range r.probes {
		g := r.polls
		if s == r.leader {
			g = r.leaderPoll
		}
		g.spawn(func(ctx context.Context) { r.poll(ctx, s) })
	}
}

// poll asks s for the documents of the watched VMs in turn, each answer
// noted by s's probe, until ctx ends.
func (r *failoverRun) poll(ctx context.Context, s *server) {
	for i := 0; failoverSleep(ctx, failoverPollEvery); i++ {
		vm := failoverWatched[i%len(failoverWatched)]
		start := time.Now()
		code, body, err := r.send(ctx, s, vm, http.MethodGet, "")
		if err != nil && ctx.Err() != nil {
			return // stopped, not failed
		}
		ok := err == nil && code == http.StatusOK
		r.probes[s].gets.note(vm.name, start, time.Now(), ok,
			fmt.Sprintf("GET as %s at %s: %d %v %s", vm.name, start.Format(time.StampMilli), code, err, body))
		if !ok {
			continue
		}
		var doc document
		if err := json.Unmarshal([]byte(body), &doc); err != nil {
			r.probes[s].fault("GET as %s: document %q: %v", vm.name, body, err)
			continue
		}
		r.probes[s].document(vm.name, doc)
		r.ledger.document(doc)
	}
}

// send makes one request of s's metadata endpoint as vm.
func (r *failoverRun) send(ctx context.Context, s *server, vm failoverVM, method, body string) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second) // a hang counts, and ends
	defer cancel()
	url := "http://" + s.metaAddr + "/metadata/scheduledevents?api-version=2020-07-01"
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Metadata", "true")
	resp, err := r.clients[vm.addr].Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// approve approves, as vm, each Scheduled event of its scope once it has
// shown for delay, asking the survivors in turn, and again an approval that
// failed, of the same survivor, until it is settled; until ctx ends.
func (r *failoverRun) approve(ctx context.Context, vm failoverVM, delay time.Duration) {
	seen := map[string]time.Time{}
	settled := map[string]bool{}
	retry := map[string]*server{} // approvals that failed, and where
	for i := 0; failoverSleep(ctx, failoverApproveEvery); i++ {
		for id, s := range retry {
			if r.post(ctx, s, vm, id) {
				settled[id] = true
				delete(retry, id)
			}
		}
		s := r.survivors[i%len(r.survivors)]
		code, body, err := r.send(ctx, s, vm, http.MethodGet, "")
		var doc document
		if err != nil || code != http.StatusOK || json.Unmarshal([]byte(body), &doc) != nil {
			continue // the pollers note failed GETs
		}
		for _, e := range doc.Events {
			if _, ok := seen[e.EventId]; !ok {
				seen[e.EventId] = time.Now()
			}
			if e.EventStatus != string(forewarn.Scheduled) || settled[e.EventId] || retry[e.EventId] != nil ||
				time.Since(seen[e.EventId]) < delay {
				continue
			}
			if r.post(ctx, s, vm, e.EventId) {
				settled[e.EventId] = true
			} else {
				retry[e.EventId] = s
			}
		}
	}
}

// post approves event id as vm through s's metadata endpoint, and notes
// the answer; true if the approval is settled: acknowledged, or refused
// with a 4xx.
func (r *failoverRun) post(ctx context.Context, s *server, vm failoverVM, id string) bool {
	start := time.Now()
	r.ledger.approving(id, vm.name, start)
	code, body, err := r.send(ctx, s, vm, http.MethodPost, `{"StartRequests":[{"EventId":"`+id+`"}]}`)
	if err != nil && ctx.Err() != nil {
		return false // stopped, not failed
	}
	what := fmt.Sprintf("POST of %s as %s at %s: %d %v %s", id, vm.name, start.Format(time.StampMilli), code, err, body)
	failed := err != nil || code >= 500
	r.probes[s].posts.note(vm.name, start, time.Now(), !failed, what)
	switch {
	case failed:
		r.ledger.ambiguous(id)
		return false
	case code == http.StatusOK && body == "{}":
		r.ledger.approved(id, vm.name, time.Now())
	default:
		r.ledger.refused(id, what)
	}
	return true
}

// operate makes a user operation (a restart) on the ops VMs in turn through
// the survivors' admin APIs, and approves it as its VM through a
// survivor's metadata endpoint until settled, except on the last VM; until
// ctx ends.
func (r *failoverRun) operate(ctx context.Context) {
	for i := 0; failoverSleep(ctx, failoverOperateEvery); i++ {
		vm := failoverOps[i%len(failoverOps)]
		sent := time.Now()
		e, err := r.survivors[i%len(r.survivors)].admin.Operate(ctx, vm.name, forewarn.OpRestart)
		switch {
		case err == nil:
			r.ledger.operated(e.ID, sent)
		case errors.Is(err, forewarn.ErrConflict): // its previous event is in flight
			continue
		case ctx.Err() != nil: // stopped, not failed; it may have committed
			r.ledger.opUnanswered(vm.name, sent)
			return
		default:
			r.ledger.opFailed(vm.name, sent, time.Now(), fmt.Sprintf("restart %s at %s: %v", vm.name, time.Now().Format(time.StampMilli), err))
			continue
		}
		if ctx.Err() != nil || vm == failoverOps[len(failoverOps)-1] {
			continue
		}
		s := r.survivors[(i+1)%len(r.survivors)] // not always the one that made it
		for !r.post(ctx, s, vm, e.ID) && failoverSleep(ctx, failoverApproveEvery) {
		}
	}
}

// observe notes the NotBefore and StartedAt of every event in flight, read
// through the survivors' admin APIs in turn, until ctx ends.
func (r *failoverRun) observe(ctx context.Context) {
	for i := 0; failoverSleep(ctx, failoverObserveEvery); i++ {
		if events, _, err := r.survivors[i%len(r.survivors)].admin.Events(ctx, forewarn.EventQuery{}); err == nil {
			r.ledger.observe(events)
		}
	}
}

// done returns how many update domains the campaign has done, -1 if the
// survivors could not say.
func (r *failoverRun) done(id string) int {
	for _, s := range r.survivors {
		if c, err := s.admin.Campaign(context.Background(), id); err == nil {
			n := 0
			for _, p := range c.Scopes {
				n += p.Done
			}
			return n
		}
	}
	return -1
}

// waitDone waits until the campaign's count of update domains done meets
// cond, and checks it is still running.
func (r *failoverRun) waitDone(id, what string, cond func(done int) bool) {
	r.t.Helper()
	r.eventually(60*time.Second, what, func() bool { return cond(r.done(id)) })
	if c, err := r.survivors[0].admin.Campaign(context.Background(), id); err != nil || c.State != forewarn.CampaignRunning {
		r.t.Fatalf("campaign no longer running at %q (the test lost its race with it): %+v, %v", what, c, err)
	}
}

// killLeader kills the leading replica with SIGKILL and returns how long
// it took another to take the time-driven work over.
func (r *failoverRun) killLeader() time.Duration {
	r.t.Helper()
	r.leaderPoll.stopWait()
	killed := time.Now()
	if err := r.leader.stop(syscall.SIGKILL); err == nil {
		r.t.Fatal("kill -9 of the leader reported a clean exit")
	}
	r.eventually(60*time.Second, "takeover", func() bool {
		return slices.ContainsFunc(r.survivors, func(s *server) bool { return strings.Contains(s.log.String(), leadingLine) })
	})
	return time.Since(killed)
}

// waitOperated waits until n more user operations than now have been
// acknowledged.
func (r *failoverRun) waitOperated(what string, n int) {
	r.t.Helper()
	want := r.ledger.operations() + n
	r.eventually(60*time.Second, what, func() bool { return r.ledger.operations() >= want })
}

// waitCampaign waits until the campaign is done, every update domain of
// every scope, as both survivors tell.
func (r *failoverRun) waitCampaign(id string) {
	r.t.Helper()
	r.eventually(120*time.Second, "the campaign done", func() bool {
		c, err := r.survivors[0].admin.Campaign(context.Background(), id)
		return err == nil && c.State != forewarn.CampaignRunning
	})
	for _, s := range r.survivors {
		c, err := s.admin.Campaign(context.Background(), id)
		if err != nil || c.State != forewarn.CampaignDone ||
			slices.ContainsFunc(c.Scopes, func(p forewarn.ScopeProgress) bool { return !p.Finished() }) {
			r.t.Fatalf("campaign on %s: %+v, %v", s.admAddr, c, err)
		}
	}
}

// eventually is eventually, but if cond does not come to hold, the
// survivors print their goroutines into their logs and exit (SIGQUIT), to
// tell where they were stuck.
func (r *failoverRun) eventually(within time.Duration, what string, cond func() bool) {
	r.t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			for _, s := range r.survivors {
				_ = s.stop(syscall.SIGQUIT)
			}
			r.t.Fatalf("%s: not within %v (the survivors' goroutines are in their logs)", what, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// drain waits until no event is in flight: the last user operations start
// at their NotBefore and complete.
func (r *failoverRun) drain() {
	r.t.Helper()
	r.eventually(60*time.Second, "no event in flight", func() bool {
		events, _, err := r.survivors[0].admin.Events(context.Background(), forewarn.EventQuery{})
		return err == nil && len(events) == 0
	})
}

// converge checks that each survivor's endpoint ends up answering every
// scope's incarnation as the store holds it: no replica stopped following
// the changes when an etcd member died.
func (r *failoverRun) converge() {
	r.t.Helper()
	for _, vm := range failoverWatched {
		scope, _, _ := strings.Cut(vm.name, "-")
		sc, err := r.survivors[0].admin.Scope(context.Background(), scope)
		if err != nil {
			r.t.Fatal(err)
		}
		for _, s := range r.survivors {
			eventually(r.t, 10*time.Second, fmt.Sprintf("incarnation %d of %s on %s", sc.Incarnation, scope, s.metaAddr), func() bool {
				code, body, err := r.send(context.Background(), s, vm, http.MethodGet, "")
				var doc document
				return err == nil && code == http.StatusOK && json.Unmarshal([]byte(body), &doc) == nil &&
					int64(doc.DocumentIncarnation) == sc.Incarnation
			})
		}
	}
}

// checkHistory checks the history against what the test was told and saw.
func (r *failoverRun) checkHistory(campaign string) {
	r.t.Helper()
	history, err := r.survivors[0].admin.History(context.Background(), 1000)
	if err != nil {
		r.t.Fatal(err)
	}
	// db's events are never approved: both start at their NotBefore.
	uds := map[string]int{"web": 3, "api": 3, "db": 2}
	for _, p := range r.ledger.check(history, campaign, uds, uds["db"]) {
		r.t.Error(p)
	}
	for _, s := range append([]*server{r.leader}, r.survivors...) {
		for _, p := range r.probes[s].problems() {
			r.t.Errorf("%s: %s", r.probes[s].name, p)
		}
	}
}

// report logs what was measured, and checks that the survivors' GETs
// never failed (they answer from memory, whatever the store does; a GET
// that hangs fails at send's bound), and that no approval nor user
// operation failed while etcd had all its members (healthy). How long
// the takeover took and the slowest GET are measurements, logged for
// scripts/failover.sh and BENCHMARKS.md, not checked.
func (r *failoverRun) report(takeover, election time.Duration, victim string, healthy time.Time) {
	r.t.Helper()
	end := time.Now()
	var getWindow, getSlowest, postWindow time.Duration
	var getFailures, postFailures int
	for _, s := range r.survivors {
		p := r.probes[s]
		gw, gs, gf := p.gets.result(end)
		pw, _, pf := p.posts.result(end)
		getWindow, getSlowest, postWindow = max(getWindow, gw), max(getSlowest, gs), max(postWindow, pw)
		getFailures, postFailures = getFailures+len(gf), postFailures+len(pf)
		if len(gf) > 0 {
			r.t.Errorf("%s: %d GETs failed (for %v at the longest), the first: %s", p.name, len(gf), gw, gf[0].what)
		}
		for _, f := range slices.Concat(gf, pf)[:min(len(gf)+len(pf), 5)] {
			r.t.Logf("%s: failed: %s", p.name, f.what)
		}
		if early := failoverBefore(pf, healthy); len(early) > 0 {
			r.t.Errorf("%s: %d approvals failed while etcd had all its members, the first: %s", p.name, len(early), early[0])
		}
	}
	ops := r.ledger.opFailures()
	for _, f := range ops[:min(len(ops), 5)] {
		r.t.Logf("failed user operation: %s", f.what)
	}
	if early := failoverBefore(ops, healthy); len(early) > 0 {
		r.t.Errorf("%d user operations failed while etcd had all its members, the first: %s", len(early), early[0])
	}
	for _, line := range r.ledger.lines() {
		r.t.Log(line)
	}
	round := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	r.t.Logf("failover: takeover=%v get-error-window=%v get-slowest=%v get-failures=%d post-5xx-window=%v post-failures=%d op-failures=%d etcd-election=%v etcd-killed=%s",
		round(takeover), round(getWindow), round(getSlowest), getFailures, round(postWindow), postFailures,
		len(ops), round(election), victim)
}
