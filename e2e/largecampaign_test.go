package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// TestLargeCampaignOnEtcd runs a campaign over more scopes than one etcd
// transaction takes (--max-txn-ops 128): serve schedules fewer scopes a
// transaction, says so, and the campaign ends with every update domain
// done; the waves of events that come due together start and complete.
func TestLargeCampaignOnEtcd(t *testing.T) {
	const scopes = 60
	s := startLargeFleetOnEtcd(t, scopes, "--time-scale", "600")
	ctx := context.Background()
	c, err := s.admin.StartCampaign(ctx, forewarn.CampaignSpec{Type: forewarn.Freeze, All: true, ParallelScopes: scopes})
	if err != nil {
		t.Fatalf("start a campaign over %d scopes: %v\n%s", scopes, err, s.log.String())
	}
	// serve says so before it answers, but its log reaches the test
	// through a pipe: wait for the line.
	eventually(t, 30*time.Second, "serve saying it takes fewer scopes a transaction", func() bool {
		return strings.Contains(s.log.String(), "taking fewer scopes of a campaign a transaction")
	})
	eventually(t, 60*time.Second, "the campaign done", func() bool {
		got, err := s.admin.Campaign(ctx, c.ID)
		return err == nil && got.State == forewarn.CampaignDone
	})
	got, err := s.admin.Campaign(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range got.Scopes {
		if p.Done != 2 {
			t.Fatalf("scope %s: %d of 2 update domains done", p.Scope, p.Done)
		}
	}
	history, err := s.admin.History(ctx, 1000)
	if err != nil || len(history) != 2*scopes {
		t.Fatalf("history has %d events (%v), want %d", len(history), err, 2*scopes)
	}
}

// TestLargeCampaignCancelOnEtcd: cancelling a campaign cancels more
// Scheduled events than one etcd transaction takes (--max-txn-ops 128),
// batch by batch, and answers the campaign cancelled with none left.
func TestLargeCampaignCancelOnEtcd(t *testing.T) {
	const scopes = 60
	s := startLargeFleetOnEtcd(t, scopes) // real time: 15 minutes of notice
	ctx := context.Background()
	c, err := s.admin.StartCampaign(ctx, forewarn.CampaignSpec{Type: forewarn.Freeze, All: true, ParallelScopes: scopes})
	if err != nil {
		t.Fatalf("start a campaign over %d scopes: %v", scopes, err)
	}
	eventually(t, 30*time.Second, "an event Scheduled in every scope", func() bool {
		events, _, err := s.admin.Events(ctx, forewarn.EventQuery{Status: forewarn.Scheduled})
		return err == nil && len(events) == scopes
	})
	got, err := s.admin.SteerCampaign(ctx, c.ID, forewarn.CancelCampaign)
	if err != nil || got.State != forewarn.CampaignCancelled {
		t.Fatalf("cancel = %+v, %v; want cancelled\n%s", got, err, s.log.String())
	}
	if events, _, err := s.admin.Events(ctx, forewarn.EventQuery{}); err != nil || len(events) != 0 {
		t.Errorf("after the cancel %d events are in flight (%v), want none", len(events), err)
	}
	if history, err := s.admin.History(ctx, 1000); err != nil || len(history) != scopes {
		t.Errorf("history has %d events (%v), want the %d cancelled", len(history), err, scopes)
	}
}

// startLargeFleetOnEtcd starts one replica on a new etcd with the default
// transaction limit, serving scopes s00... of two update domains with a VM
// in each, and waits until it leads.
func startLargeFleetOnEtcd(t *testing.T, scopes int, extra ...string) *server {
	t.Helper()
	dir := t.TempDir()
	var fleet strings.Builder
	fleet.WriteString("scopes:\n")
	for i := range scopes {
		fmt.Fprintf(&fleet, "  - name: s%02d\n    updateDomains: 2\n    vms:\n", i)
		for ud := range 2 {
			fmt.Fprintf(&fleet, "      - {name: s%02d-%d, updateDomain: %d}\n", i, ud, ud)
		}
	}
	tokenFile, fleetFile := filepath.Join(dir, "token"), filepath.Join(dir, "fleet.yaml")
	if err := os.WriteFile(tokenFile, []byte("e2e-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fleetFile, []byte(fleet.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	store := fmt.Sprintf("etcd://%s/e2e-%d", startEtcd(t), rand.Int64())
	s := startReplica(t, store, tokenFile, fleetFile, extra...)
	eventually(t, 30*time.Second, "leading", func() bool { return strings.Contains(s.log.String(), leadingLine) })
	return s
}
