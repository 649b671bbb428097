package fabric

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/jonboulle/clockwork"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/etcd"
	"github.com/forewarn/forewarn/internal/etcdtest"
)

// TestTransactionsFillWithoutNotice runs the campaign of
// TestTransactionsFillEtcdBound on scopes of 6 VMs in 3 update domains
// that have not enabled Scheduled Events: their events start at once, so
// scheduling one writes its VMs too, more than the writes step expects of
// a scope before it has seen one. No transaction may pass etcd's bound.
// (A review found 2 refused, which halved the store's bound for good.)
func TestTransactionsFillWithoutNotice(t *testing.T) {
	_, addr := etcdtest.Start(t, "fillnn")
	s, err := etcd.Open(t.Context(), etcd.Config{Endpoints: []string{addr}, Prefix: "/fill"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	log := &bytes.Buffer{}
	clock := clockwork.NewFakeClockAt(t0)
	f, err := New(t.Context(), Config{Store: s, Clock: clock,
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
			specs = append(specs, forewarn.ScopeSpec{Name: name, UpdateDomains: 3})
			for v := range 6 {
				ud := v % 3
				vms = append(vms, forewarn.VMSpec{Name: fmt.Sprintf("%s-%d", name, v), Scope: name, UpdateDomain: &ud})
			}
		}
		if err := f.CreateBatch(t.Context(), specs, vms); err != nil {
			t.Fatal(err)
		}
	}
	c, err := f.StartCampaign(t.Context(), forewarn.CampaignSpec{Type: forewarn.Reboot, All: true, ParallelScopes: fillScopes})
	if err != nil {
		t.Fatal(err)
	}
	commits := runFill(t, f, s, clock, c)
	t.Logf("commits of each Tick: %v", commits)
	if k := strings.Count(log.String(), "too large"); k > 0 {
		t.Errorf("etcd refused %d transactions as too large:\n%s", k, log.String())
	}
}
