package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
)

// The crash test's settings. At crashScale a Reboot's 15 minutes of notice
// become 1.5 s and its minute of impact 0.1 s; a server runs up to
// crashMaxUp between its start and its kill.
const (
	crashScale    = 600
	crashMaxUp    = 2 * time.Second
	crashSettle   = 3 * time.Minute // the end's wait for every campaign and event to finish
	crashEtcdPath = "/crash"
	// crashHistory is how much of the history a check reads, newest
	// first: far more than the events that end between two checks, and
	// no more than the etcd store can read in one transaction (etcd's
	// --max-txn-ops, 128 by default). Events seen in it are remembered.
	crashHistory = 100
	// crashCampaigns bounds the campaigns of a run, which the etcd store
	// lists in one transaction too.
	crashCampaigns = 100
)

// crashVM is one VM of the crash test's fleet.
type crashVM struct {
	name, scope, addr string
	ud                int
}

// crashScopes are the availability sets of the crash test's fleet, with
// their update domains; crashVMs are their VMs.
var (
	crashScopes = []struct {
		name string
		uds  int
	}{{"web", 3}, {"api", 2}, {"db", 3}}
	crashVMs = []crashVM{
		{"web-0", "web", "127.0.30.1", 0}, {"web-1", "web", "127.0.30.2", 1},
		{"web-2", "web", "127.0.30.3", 2}, {"web-3", "web", "127.0.30.4", 0},
		{"web-4", "web", "127.0.30.5", 1}, {"web-5", "web", "127.0.30.6", 2},
		{"api-0", "api", "127.0.31.1", 0}, {"api-1", "api", "127.0.31.2", 1},
		{"api-2", "api", "127.0.31.3", 0}, {"api-3", "api", "127.0.31.4", 1},
		{"db-0", "db", "127.0.32.1", 0}, {"db-1", "db", "127.0.32.2", 1}, {"db-2", "db", "127.0.32.3", 2},
	}
)

// TestCrashSafety: while VMs poll and approve, an operator restarts and
// redeploys VMs, approves and cancels events, and campaigns walk the update
// domains, the server is killed with SIGKILL at random moments and
// restarted, FOREWARN_CRASH_KILLS times (default 20) per store. After each
// restart no acknowledged event, approval, cancel or campaign is lost (an
// acknowledged approval had started its event by the time it was
// answered), no incarnation went down, no event started before its
// NotBefore, nor its type's notice after the test asked for it, unless the
// test had sent an approval of it, and none started twice; both endpoints
// of each server answer until it is killed; at the end every campaign
// finishes, with one event per update domain. FOREWARN_CRASH_SEED replays a run's
// random choices (the timing of a run is not replayed).
func TestCrashSafety(t *testing.T) {
	kills, seed := crashSettings(t)
	t.Logf("%d kills per store, FOREWARN_CRASH_SEED=%d", kills, seed)
	t.Run("bolt", func(t *testing.T) {
		dir, fleet := t.TempDir(), crashFleetFile(t)
		c := newCrashRun(t, seed, rand.New(rand.NewPCG(seed, 1)), func() *server {
			s := launch(t, "--data-dir", dir, "--dev", "--time-scale", strconv.Itoa(crashScale), "--fleet", fleet)
			token, err := os.ReadFile(filepath.Join(dir, "admin.token"))
			if err != nil {
				t.Fatal(err)
			}
			s.dataDir, s.admin = dir, admin.NewClient("http://"+s.admAddr, strings.TrimSpace(string(token)))
			return s
		})
		c.run(kills)
	})
	t.Run("etcd", func(t *testing.T) {
		endpoint, fleet := startEtcd(t), crashFleetFile(t)
		tokenFile := filepath.Join(t.TempDir(), "token")
		if err := os.WriteFile(tokenFile, []byte("e2e-crash-token\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		c := newCrashRun(t, seed, rand.New(rand.NewPCG(seed, 2)), func() *server {
			s := launch(t, "--store", "etcd://"+endpoint+crashEtcdPath, "--admin-token-file", tokenFile,
				"--dev", "--time-scale", strconv.Itoa(crashScale), "--fleet", fleet)
			s.admin = admin.NewClient("http://"+s.admAddr, "e2e-crash-token")
			return s
		})
		led, revoke := 0, crashLeaseRevoker(t, endpoint, c.rng)
		c.afterKill = func(killed *server) {
			if strings.Contains(killed.log.String(), leadingLine) {
				led++
			}
			revoke()
		}
		c.run(kills)
		t.Logf("%d of the %d servers killed led the time-driven work", led, kills)
	})
}

// crashSettings reads the number of kills and the seed from the
// environment; the seed is random if not given.
func crashSettings(t *testing.T) (int, uint64) {
	kills, seed := 20, rand.Uint64()
	if v := os.Getenv("FOREWARN_CRASH_KILLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("FOREWARN_CRASH_KILLS=%q: want a whole number from 1", v)
		}
		kills = n
	}
	if v := os.Getenv("FOREWARN_CRASH_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("FOREWARN_CRASH_SEED=%q: want a whole number", v)
		}
		seed = n
	}
	return kills, seed
}

// crashFleetFile writes the crash test's fleet file and returns its path.
func crashFleetFile(t *testing.T) string {
	var b strings.Builder
	b.WriteString("scopes:\n")
	for _, s := range crashScopes {
		fmt.Fprintf(&b, "  - name: %s\n    updateDomains: %d\n    vms:\n", s.name, s.uds)
		for _, vm := range crashVMsOf(s.name) {
			fmt.Fprintf(&b, "      - {name: %s, updateDomain: %d, addresses: [%s]}\n", vm.name, vm.ud, vm.addr)
		}
	}
	path := filepath.Join(t.TempDir(), "fleet.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// crashVMsOf returns the VMs of a scope of the crash test's fleet.
func crashVMsOf(scope string) []crashVM {
	var out []crashVM
	for _, vm := range crashVMs {
		if vm.scope == scope {
			out = append(out, vm)
		}
	}
	return out
}

// crashLeaseRevoker returns what the etcd run does after each kill: most
// times it revokes the leader leases left in etcd, as an operator would
// with etcdctl, so that the next server leads at once instead of after
// the dead one's lease expires (10 s); the other times the next server
// waits, and may be killed while it follows.
func crashLeaseRevoker(t *testing.T, endpoint string, rng *rand.Rand) func() {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatalf("etcd client: %v", err)
	}
	t.Cleanup(func() { cli.Close() })
	return func() {
		if rng.IntN(4) == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := cli.Get(ctx, crashEtcdPath+"/leader/", clientv3.WithPrefix())
		if err != nil {
			t.Fatalf("list leader keys: %v", err)
		}
		for _, kv := range resp.Kvs {
			// A lease that failed to go (it expired meanwhile, say) only
			// makes the next server wait for it.
			_, _ = cli.Revoke(ctx, clientv3.LeaseID(kv.Lease))
		}
	}
}

// crashRun is one store's run: the server of the moment, the VMs' HTTP
// clients, and the ledger of what the test saw and was acknowledged.
type crashRun struct {
	t         *testing.T
	seed      uint64
	rng       *rand.Rand // the test goroutine's; workers get their own
	start     func() *server
	afterKill func(killed *server) // after a kill, before the restart; may be nil
	target    atomic.Pointer[server]
	clients   map[string]*http.Client // by VM name
	ledger    *crashLedger
	campaigns int // at most this many campaigns are started
}

// newCrashRun returns a run whose servers start, with its random choices
// drawn from rng, seeded with seed.
func newCrashRun(t *testing.T, seed uint64, rng *rand.Rand, start func() *server) *crashRun {
	c := &crashRun{t: t, seed: seed, rng: rng, start: start, clients: map[string]*http.Client{},
		ledger: newCrashLedger(rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64())))}
	for _, vm := range crashVMs {
		hc := from(t, vm.addr)
		hc.Timeout = 10 * time.Second
		c.clients[vm.name] = hc
	}
	return c
}

// run starts the server and a campaign, sets the workers going, kills and
// restarts the server kills times, checking after each restart, then
// waits for everything to finish and checks the campaigns' events.
func (c *crashRun) run(kills int) {
	t := c.t
	began := time.Now()
	c.campaigns = min(1+kills/8, crashCampaigns)
	s := c.start()
	c.target.Store(s)
	if err := c.startCampaign(context.Background(), s, c.rng); err != nil {
		t.Fatalf("first campaign: %v", err)
	}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { stop(); wg.Wait() }()
	for _, sc := range crashScopes {
		rng := rand.New(rand.NewPCG(c.rng.Uint64(), 0))
		wg.Go(func() { c.poll(ctx, sc.name, rng) })
	}
	rng := rand.New(rand.NewPCG(c.rng.Uint64(), 1))
	wg.Go(func() { c.operate(ctx, rng) })
	for i := range kills {
		time.Sleep(time.Duration(c.rng.Int64N(int64(crashMaxUp))))
		s = c.kill(s)
		c.check(s, fmt.Sprintf("after kill %d", i+1))
	}
	stop()
	wg.Wait()
	killed := time.Now()
	c.settle(s)
	c.ledger.campaignEvents()
	c.report("at the end")
	t.Logf("%d kills in %v, all finished %v later; %s", kills, killed.Sub(began).Round(time.Second),
		time.Since(killed).Round(time.Second), c.ledger.summary())
}

// kill kills s with SIGKILL and starts the next server.
func (c *crashRun) kill(s *server) *server {
	if err := s.stop(syscall.SIGKILL); err == nil {
		c.t.Fatal("kill -9 reported a clean exit")
	}
	c.ledger.killed()
	if c.afterKill != nil {
		c.afterKill(s)
	}
	next := c.start()
	c.target.Store(next)
	return next
}

// check reads everything the admin API shows of s, checks it against the
// ledger, and fails the test on any fault found so far.
func (c *crashRun) check(s *server, when string) {
	c.t.Helper()
	ctx := context.Background()
	m := c.ledger.mark()
	scopes, err := s.admin.Scopes(ctx)
	if err != nil {
		c.t.Fatalf("%s: scopes: %v", when, err)
	}
	// Events before history: an event that ends between the two reads is
	// in the second.
	events, _, err := s.admin.Events(ctx, forewarn.EventQuery{})
	if err != nil {
		c.t.Fatalf("%s: events: %v", when, err)
	}
	history, err := s.admin.History(ctx, crashHistory)
	if err != nil {
		c.t.Fatalf("%s: history: %v", when, err)
	}
	campaigns, err := s.admin.Campaigns(ctx)
	if err != nil {
		c.t.Fatalf("%s: campaigns: %v", when, err)
	}
	c.ledger.verify(m, crashListing{scopes, events, history, campaigns})
	c.report(when)
}

// report fails the test with the faults found so far, if any.
func (c *crashRun) report(when string) {
	c.t.Helper()
	if faults := c.ledger.takeFaults(); len(faults) > 0 {
		c.t.Fatalf("%s, %d faults (FOREWARN_CRASH_SEED=%d):\n%s", when, len(faults), c.seed, strings.Join(faults, "\n"))
	}
}

// settle waits until every campaign is done and every event has ended,
// checking all along.
func (c *crashRun) settle(s *server) {
	deadline := time.Now().Add(crashSettle)
	for {
		c.check(s, "at the end")
		pending := c.ledger.pending()
		if pending == "" {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("not finished %v after the last restart: %s", crashSettle, pending)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// poll asks for the scope's document as its VMs, in turn at random, and
// approves the events the ledger plans a VM to approve, until ctx ends.
func (c *crashRun) poll(ctx context.Context, scope string, rng *rand.Rand) {
	vms := crashVMsOf(scope)
	for ctx.Err() == nil {
		vm := vms[rng.IntN(len(vms))]
		s := c.target.Load()
		url := "http://" + s.metaAddr + "/metadata/scheduledevents?api-version=2020-07-01"
		m := c.ledger.markVM(scope)
		code, body, err := crashHTTP(ctx, c.clients[vm.name], http.MethodGet, url, "")
		switch {
		case err != nil:
			c.transportError(ctx, s, "GET as "+vm.name, err)
		case code != http.StatusOK:
			c.ledger.fault("GET as %s: %d %s", vm.name, code, body)
		default:
			for _, id := range c.ledger.observeDoc(m, vm.name, scope, body) {
				c.approveAs(ctx, s, url, vm, id)
			}
		}
		crashSleep(ctx, 20+rng.IntN(60))
	}
}

// approveAs approves an event through s's metadata endpoint, at url, as a
// VM.
func (c *crashRun) approveAs(ctx context.Context, s *server, url string, vm crashVM, id string) {
	c.ledger.approving(id, vm.name)
	code, body, err := crashHTTP(ctx, c.clients[vm.name], http.MethodPost, url, `{"StartRequests":[{"EventId":"`+id+`"}]}`)
	switch {
	case err != nil:
		c.transportError(ctx, s, "approval of "+id+" as "+vm.name, err)
	case code == http.StatusOK && body == "{}":
		c.ledger.approved(id)
	case code == http.StatusBadRequest: // ended meanwhile
		c.ledger.unplan(id)
	default:
		c.ledger.fault("approval of %s as %s: %d %s", id, vm.name, code, body)
	}
}

// operate acts as the operator until ctx ends: admin approvals as the
// ledger plans them, user operations, cancels and campaigns.
func (c *crashRun) operate(ctx context.Context, rng *rand.Rand) {
	for ctx.Err() == nil {
		s := c.target.Load()
		for _, id := range c.ledger.adminDue() {
			m := c.ledger.mark()
			c.ledger.approving(id, forewarn.ApprovedByAdmin)
			e, err := s.admin.Approve(ctx, id)
			switch {
			case err == nil:
				c.ledger.approved(id)
				c.ledger.observe(m, e)
			case errors.Is(err, forewarn.ErrNotFound): // ended meanwhile
				c.ledger.unplan(id)
			default:
				c.adminError(ctx, s, "approve "+id, err)
			}
		}
		switch n := rng.IntN(100); {
		case n < 3 && c.ledger.campaignCount() < c.campaigns:
			c.adminError(ctx, s, "start a campaign", c.startCampaign(ctx, s, rng))
		case n < 15:
			c.cancel(ctx, s, rng)
		default:
			c.operateVM(ctx, s, rng)
		}
		crashSleep(ctx, 50+rng.IntN(200))
	}
}

// operateVM restarts or redeploys a VM.
func (c *crashRun) operateVM(ctx context.Context, s *server, rng *rand.Rand) {
	vm := crashVMs[rng.IntN(len(crashVMs))]
	op := []forewarn.Operation{forewarn.OpRestart, forewarn.OpRedeploy}[rng.IntN(2)]
	m := c.ledger.mark()
	sent := c.ledger.asking(vm.name)
	e, err := s.admin.Operate(ctx, vm.name, op)
	if err != nil {
		if madeNothing(err) {
			c.ledger.askRefused(vm.name, sent)
		}
		c.adminError(ctx, s, fmt.Sprintf("%s %s", op, vm.name), err)
		return
	}
	c.ledger.observeAsked(m, vm.name, sent, e)
}

// cancel cancels a Scheduled user operation that no one plans to approve.
func (c *crashRun) cancel(ctx context.Context, s *server, rng *rand.Rand) {
	id := c.ledger.cancelCandidate(rng)
	if id == "" {
		return
	}
	m := c.ledger.mark()
	e, err := s.admin.Cancel(ctx, id)
	if err != nil {
		c.adminError(ctx, s, "cancel "+id, err)
		return
	}
	c.ledger.observe(m, e)
	c.ledger.cancelled(id)
}

// adminError records an error of a request to s's admin API that is a
// fault: an answer that is not one of its errors for the caller (4xx),
// such as a 500, or no answer from a server that was not killed. Refusals
// (a VM busy, an event started) are part of the test.
func (c *crashRun) adminError(ctx context.Context, s *server, what string, err error) {
	switch {
	case err == nil || refused(err):
	case strings.Contains(err.Error(), "(HTTP "):
		c.ledger.fault("%s: %v", what, err)
	default:
		c.transportError(ctx, s, what, err)
	}
}

// refused reports whether err is one of the admin API's errors for the
// caller.
func refused(err error) bool {
	var apiErr *forewarn.Error
	return errors.As(err, &apiErr)
}

// madeNothing reports whether err says the request changed nothing: a
// refusal, but not the store's unavailability (503), after which a commit
// may still have been applied.
func madeNothing(err error) bool {
	return refused(err) && !errors.Is(err, forewarn.ErrUnavailable)
}

// transportError records a request to s that got no answer as a fault,
// unless s was killed before the error came (the kill's doing: a kill
// resets the connections at once) or the run is over (ctx ended). A
// server that refuses connections, resets them or holds a request until
// the client's timeout, and is not killed meanwhile, is at fault.
func (c *crashRun) transportError(ctx context.Context, s *server, what string, err error) {
	if ctx.Err() == nil && !s.signalled.Load() {
		c.ledger.fault("%s: %v, and the server was not killed", what, err)
	}
}

// startCampaign starts a campaign over every scope of the fleet.
func (c *crashRun) startCampaign(ctx context.Context, s *server, rng *rand.Rand) error {
	types := []forewarn.EventType{forewarn.Reboot, forewarn.Freeze, forewarn.Redeploy}
	spec := forewarn.CampaignSpec{Type: types[c.ledger.campaignCount()%len(types)], ParallelScopes: 2 + rng.IntN(2)}
	for _, sc := range crashScopes {
		spec.Scopes = append(spec.Scopes, sc.name)
	}
	m := c.ledger.mark()
	sent := c.ledger.asking(crashCampaignKey)
	cp, err := s.admin.StartCampaign(ctx, spec)
	switch {
	case err == nil:
		c.ledger.observeCampaignAsked(m, sent, cp)
	case madeNothing(err):
		c.ledger.askRefused(crashCampaignKey, sent)
	}
	return err
}

// crashHTTP sends one request to the metadata endpoint through hc; unlike
// call, it reports errors instead of failing the test, for the workers.
func crashHTTP(ctx context.Context, hc *http.Client, method, url, body string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Metadata", "true")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// crashSleep sleeps ms milliseconds, or less if ctx ends.
func crashSleep(ctx context.Context, ms int) {
	select {
	case <-ctx.Done():
	case <-time.After(time.Duration(ms) * time.Millisecond):
	}
}
