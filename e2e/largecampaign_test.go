package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/forewarn/forewarn"
)

// TestLargeCampaignOnEtcd runs a campaign over more scopes than one etcd
// transaction takes (--max-txn-ops 128) and follows, with a watch of its
// own, every key serve writes into etcd meanwhile. The campaign ends with
// every update domain done, its waves of events that come due together
// started and completed in transactions that etcd never refuses as too
// large, and each write costs what changed: no key is rewritten per event
// but the scope's (its incarnation) and serve's own sequence keys, the
// campaign's progress is written per scope as it moves, and the bytes
// written per event do not grow with the fleet or the history (before
// schema 3, the history's index and the campaign's record were rewritten
// whole for every event that ended).
func TestLargeCampaignOnEtcd(t *testing.T) {
	const scopes = 60
	s, addr, prefix := startLargeFleetOnEtcd(t, scopes, "--time-scale", "600")
	ctx := context.Background()
	writes := watchWrites(t, addr, prefix)
	c, err := s.admin.StartCampaign(ctx, forewarn.CampaignSpec{Type: forewarn.Freeze, All: true, ParallelScopes: scopes})
	if err != nil {
		t.Fatalf("start a campaign over %d scopes: %v\n%s", scopes, err, s.log.String())
	}
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
	const events = 2 * scopes
	history, err := s.admin.History(ctx, 1000)
	if err != nil || len(history) != events {
		t.Fatalf("history has %d events (%v), want %d", len(history), err, events)
	}
	if strings.Contains(s.log.String(), "too large") {
		t.Errorf("etcd refused a transaction of serve as too large:\n%s", s.log.String())
	}

	w := writes()
	perKey := map[string]int{}
	for _, k := range w.keys {
		perKey[k]++
	}
	for k, n := range perKey {
		dir, _, _ := strings.Cut(k, "/")
		limit := 3 // an event: scheduled, started, ended; a VM: its state at the start and the end
		switch dir {
		case "seq": // the guard every commit writes, the history's sequence
			continue
		case "scopes": // its incarnation, at each change of each of its 2 events
			limit = 3 * 2
		case "campaigns": // the record, without the progress: its state, its estimated end
			limit = 10
		case "campaign-scopes": // a scope's progress: its first event, then each end with the next event, and the last end
			limit = 2 + 1
		}
		if n > limit {
			t.Errorf("%s written %d times during the campaign, want at most %d", k, n, limit)
		}
	}
	if perEvent := w.bytes / events; perEvent > 6000 {
		t.Errorf("the campaign wrote %d bytes into etcd, %d an event: want at most 6,000", w.bytes, perEvent)
	}
	if perEvent := float64(len(w.keys)) / events; perEvent > 16 {
		t.Errorf("the campaign wrote %d keys, %.1f an event: want at most 16", len(w.keys), perEvent)
	}
	t.Logf("%d events: %d keys written (%.1f an event), %d bytes (%d an event), in %d revisions",
		events, len(w.keys), float64(len(w.keys))/events, w.bytes, w.bytes/events, w.revisions)
}

// etcdWrites is what a watch saw written under a prefix: the key of each
// put and delete (without the prefix), the bytes of keys and values put,
// and the revisions.
type etcdWrites struct {
	keys      []string
	bytes     int
	revisions int
}

// watchWrites watches every key under prefix from now on; the function it
// returns stops the watch and returns what it saw.
func watchWrites(t *testing.T, addr, prefix string) func() etcdWrites {
	t.Helper()
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{addr}, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	resp, err := client.Get(t.Context(), prefix+"/none")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	watch := client.Watch(ctx, prefix+"/", clientv3.WithPrefix(), clientv3.WithRev(resp.Header.Revision+1))
	var (
		mu   sync.Mutex
		w    etcdWrites
		revs = map[int64]bool{}
		seen int64 // the newest revision the watch saw
	)
	go func() {
		for r := range watch {
			mu.Lock()
			for _, ev := range r.Events {
				w.keys = append(w.keys, strings.TrimPrefix(string(ev.Kv.Key), prefix+"/"))
				w.bytes += len(ev.Kv.Key) + len(ev.Kv.Value)
				revs[ev.Kv.ModRevision] = true
				seen = max(seen, ev.Kv.ModRevision)
			}
			mu.Unlock()
		}
	}()
	return func() etcdWrites {
		t.Helper()
		last, err := client.Get(t.Context(), prefix+"/none") // every write of serve is under the prefix
		if err != nil {
			t.Fatal(err)
		}
		eventually(t, 10*time.Second, "the watch seeing etcd's last revision", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return seen >= last.Header.Revision
		})
		cancel()
		mu.Lock()
		defer mu.Unlock()
		w.revisions = len(revs)
		return w
	}
}

// startLargeFleetOnEtcd starts one replica on a new etcd with the default
// transaction limit, serving scopes s00... of two update domains with a VM
// in each, and waits until it leads. It returns the replica, etcd's
// address and the store's prefix.
func startLargeFleetOnEtcd(t *testing.T, scopes int, extra ...string) (s *server, addr, prefix string) {
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
	addr, prefix = startEtcd(t), fmt.Sprintf("/e2e-%d", rand.Int64())
	s = startReplica(t, "etcd://"+addr+prefix, tokenFile, fleetFile, extra...)
	eventually(t, 30*time.Second, "leading", func() bool { return strings.Contains(s.log.String(), leadingLine) })
	return s, addr, prefix
}
