package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// TestReplicaStartReadsTheFleetOnce starts a second replica on a fleet of
// 2,000 VMs in 200 scopes in etcd and counts the requests etcd serves (the
// embedded etcd's own metrics, in this process) from its exec until its
// admin API answers: it reads the fleet once, a page of 500 keys at a time,
// and follows from that read. Before issue 15 a replica made about 8
// requests per scope to start (1,600 here), then read the whole fleet again.
func TestReplicaStartReadsTheFleetOnce(t *testing.T) {
	const scopes, vms = 200, 10
	var fleet strings.Builder
	fleet.WriteString("scopes:\n")
	for i := range scopes {
		fmt.Fprintf(&fleet, "  - name: s%03d\n    updateDomains: 5\n    vms:\n", i)
		for v := range vms {
			fmt.Fprintf(&fleet, "      - {name: s%03d-%d, addresses: [10.%d.%d.%d]}\n", i, v, i/200, i%200, v+1)
		}
	}
	tokenFile, fleetFile := replicaFiles(t, "e2e-token", fleet.String())
	store := fmt.Sprintf("etcd://%s/e2e-%d", startEtcd(t), rand.Int64())
	first := startReplica(t, store, tokenFile, fleetFile)
	eventually(t, 60*time.Second, "the fleet applied", func() bool {
		list, err := first.admin.Scopes(context.Background())
		return err == nil && len(list) == scopes
	})

	before := etcdRequests(t)
	second := launch(t, "--store", store, "--admin-token-file", tokenFile, "--dev") // until both listeners answer
	requests := etcdRequests(t) - before
	t.Logf("the second replica started with %d requests to etcd", requests)
	// 2,000 VMs, their index entries and 200 scopes in pages of 500 keys,
	// the settings, the campaigns, the roster and the election: about 20.
	if requests > 40 {
		t.Errorf("the second replica made %d requests to etcd to start, want at most 40:\n%s", requests, second.log.String())
	}
}

// etcdRequests returns how many KV requests (reads, transactions) the
// embedded etcd of this process has served.
func etcdRequests(t *testing.T) int {
	t.Helper()
	families, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0.0
	for _, f := range families {
		if f.GetName() != "grpc_server_handled_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "grpc_service" && l.GetValue() == "etcdserverpb.KV" {
					n += m.GetCounter().GetValue()
				}
			}
		}
	}
	return int(n)
}
