package fabric

import (
	"bytes"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/jonboulle/clockwork"
	"go.etcd.io/etcd/server/v3/embed"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/etcd"
	"github.com/forewarn/forewarn/internal/etcdtest"
)

// TestTransactionsFillEtcdBound runs a campaign over 62 scopes on a real
// etcd with its default --max-txn-ops (128), every update domain's events
// due at once, and counts etcd's revisions (one a commit): each phase
// takes as few transactions as fit 128 operations (its events' writes and
// the guard), never one etcd refuses as too large. Starting 62 events
// writes 4 keys each (the event, 2 VMs, the scope's incarnation): 248
// keys, 2 commits. Halving a batch until it fits (the scheduler before
// it knew the bound) took 4, after 4 refused.
func TestTransactionsFillEtcdBound(t *testing.T) {
	_, addr := etcdtest.Start(t, "fill")
	f, s, clock, log := fillFleet(t, addr)
	c, err := f.StartCampaign(t.Context(), forewarn.CampaignSpec{Type: forewarn.Reboot, All: true, ParallelScopes: fillScopes})
	if err != nil {
		t.Fatal(err)
	}
	commits := runFill(t, f, s, clock, c)
	if strings.Contains(log.String(), "too large") {
		t.Errorf("etcd refused a transaction as too large:\n%s", log.String())
	}
	// The first Tick schedules the rest of the first update domain (the
	// campaign's start scheduled 31); then, for each update domain, one
	// Tick starts the 62 events, and one completes them and schedules the
	// next update domain's (the last: notes the campaign done).
	t.Logf("commits of each Tick: %v", commits)
	if commits[1] != 2 {
		t.Errorf("starting %d events took %d commits, want 2 (4 writes each, 128 a commit)", fillScopes, commits[1])
	}
	// Completing 62 events writes 6 keys each (the event and its index
	// entry deleted, its history entry, 2 VMs, the incarnation): 4
	// commits; scheduling the next update domain's, 4 each and a
	// progress: 2.
	total := 0
	for _, c := range commits {
		total += int(c)
	}
	if total > 17 {
		t.Errorf("the campaign took %d commits, want at most 17", total)
	}
}

// TestTransactionsLearnEtcdBound runs the campaign of
// TestTransactionsFillEtcdBound on an etcd whose --max-txn-ops is 50: the
// store learns a bound from the first requests etcd refuses (halving its
// own, 128, to 32: etcd does not say its bound), and fills the next
// transactions up to it.
func TestTransactionsLearnEtcdBound(t *testing.T) {
	_, addr := etcdtest.StartWith(t, "learn", func(cfg *embed.Config) { cfg.MaxTxnOps = 50 })
	f, s, clock, log := fillFleet(t, addr)
	c, err := f.StartCampaign(t.Context(), forewarn.CampaignSpec{Type: forewarn.Reboot, All: true, ParallelScopes: fillScopes})
	if err != nil {
		t.Fatal(err)
	}
	commits := runFill(t, f, s, clock, c)
	t.Logf("commits of each Tick: %v", commits)
	if n := strings.Count(log.String(), "too large"); n > 2 {
		t.Errorf("etcd refused %d transactions as too large, want at most 2:\n%s", n, log.String())
	}
	// Completing 62 events (6 writes each) 32 writes a commit: 14
	// commits, and the advance after.
	if most := slices.Max(commits); most > 17 {
		t.Errorf("a Tick took %d commits, want at most 17", most)
	}
}

// fillScopes is the scopes of the campaigns of TestTransactionsFillEtcdBound.
const fillScopes = 62

// fillFleet starts a fabric on etcd at addr, with a fleet of fillScopes
// scopes of 4 VMs in 2 update domains, and returns it, its store, its
// clock and its log.
func fillFleet(t *testing.T, addr string) (*Fabric, *etcd.Store, *clockwork.FakeClock, *bytes.Buffer) {
	t.Helper()
	s, err := etcd.Open(t.Context(), etcd.Config{Endpoints: []string{addr}, Prefix: "/fill"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	log := &bytes.Buffer{}
	clock := clockwork.NewFakeClockAt(t0)
	f, err := New(t.Context(), Config{Store: s, Clock: clock, AlwaysEnabled: true,
		Logger: slog.New(slog.NewTextHandler(log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	const n = fillScopes
	for i := 0; i < n; i += 5 {
		var specs []forewarn.ScopeSpec
		var vms []forewarn.VMSpec
		for j := i; j < min(n, i+5); j++ {
			name := fmt.Sprintf("s%02d", j)
			specs = append(specs, forewarn.ScopeSpec{Name: name, UpdateDomains: 2})
			for v := range 4 {
				ud := v % 2
				vms = append(vms, forewarn.VMSpec{Name: fmt.Sprintf("%s-%d", name, v), Scope: name, UpdateDomain: &ud})
			}
		}
		if err := f.CreateBatch(t.Context(), specs, vms); err != nil {
			t.Fatal(err)
		}
	}
	return f, s, clock, log
}

// runFill runs the campaign c to its end, and returns the commits of each
// Tick that did work (etcd's revisions: one a commit).
func runFill(t *testing.T, f *Fabric, s *etcd.Store, clock *clockwork.FakeClock, c *forewarn.Campaign) []int64 {
	t.Helper()
	revision := func() int64 {
		resp, err := s.Client().Get(t.Context(), "/fill/none")
		if err != nil {
			t.Fatal(err)
		}
		return resp.Header.Revision
	}
	var commits []int64
	for range 100 {
		before := revision()
		next, err := f.Tick(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if d := revision() - before; d > 0 {
			commits = append(commits, d)
		}
		if next.IsZero() {
			break
		}
		if wait := next.Sub(clock.Now()); wait > 0 {
			clock.Advance(wait)
		}
	}
	if got, _ := f.Campaign(t.Context(), c.ID); got.State != forewarn.CampaignDone {
		t.Fatalf("campaign %s, want done", got.State)
	}
	return commits
}
