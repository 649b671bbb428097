package fabric

import (
	"bytes"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/etcd"
	"github.com/forewarn/forewarn/internal/etcdtest"
)

// TestWaitingScopesDoNotSpin runs two campaigns over 200 scopes of one VM
// on etcd: the first holds events in 150 of them, an hour off; the
// second, over all 200, waits in those 150 and schedules the other 50. A
// waiting scope moves nothing: it must not use up an advance's share of
// the transaction (a review found the scheduler asking to run again at
// once in every Tick, the 50 free scopes never scheduled).
func TestWaitingScopesDoNotSpin(t *testing.T) {
	_, addr := etcdtest.Start(t, "wait")
	s, err := etcd.Open(t.Context(), etcd.Config{Endpoints: []string{addr}, Prefix: "/wait"})
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
	const n = 200
	for i := 0; i < n; i += 20 {
		var specs []forewarn.ScopeSpec
		var vms []forewarn.VMSpec
		for j := i; j < i+20; j++ {
			name := fmt.Sprintf("s%03d", j)
			specs = append(specs, forewarn.ScopeSpec{Name: name, UpdateDomains: 1})
			ud := 0
			vms = append(vms, forewarn.VMSpec{Name: name + "-0", Scope: name, UpdateDomain: &ud})
		}
		if err := f.CreateBatch(t.Context(), specs, vms); err != nil {
			t.Fatal(err)
		}
	}
	var first []string
	for j := range 150 {
		first = append(first, fmt.Sprintf("s%03d", j))
	}
	a, err := f.StartCampaign(t.Context(), forewarn.CampaignSpec{Type: forewarn.Reboot, Scopes: first, ParallelScopes: n,
		Notice: forewarn.Duration(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	// Let A schedule every scope, without time passing.
	for range 10 {
		if _, err := f.Tick(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	b, err := f.StartCampaign(t.Context(), forewarn.CampaignSpec{Type: forewarn.Reboot, All: true, ParallelScopes: n})
	if err != nil {
		t.Fatal(err)
	}
	now := 0
	for range 30 {
		next, err := f.Tick(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if !next.After(clock.Now()) {
			now++
		}
	}
	count := func(id string) (events, waiting, untouched int) {
		c, err := f.Campaign(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range c.Scopes {
			switch {
			case p.Event != "":
				events++
			case p.Waiting != "":
				waiting++
			case p.Done == 0:
				untouched++
			}
		}
		return
	}
	ae, aw, au := count(a.ID)
	be, bw, bu := count(b.ID)
	t.Logf("A: %d events, %d waiting, %d untouched; B: %d events, %d waiting, %d untouched", ae, aw, au, be, bw, bu)
	if now > 2 {
		t.Errorf("%d of 30 Ticks asked to run again at once with no time passing", now)
	}
	if be != n-150 || bw != 150 {
		t.Errorf("the second campaign has %d events and %d scopes waiting, want %d and 150", be, bw, n-150)
	}
}
