package e2e

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// TestStorePrefixTypo starts a replica on a prefix of etcd with no fleet
// (a typo of the fleet's): with --store-must-exist it refuses to start and
// says why; without, it starts a new fleet but warns, and status shows the
// store with its prefix.
func TestStorePrefixTypo(t *testing.T) {
	tokenFile, fleetFile := replicaFiles(t, "e2e-shared-token", replicaFleet)
	endpoint, n := startEtcd(t), rand.Int64()
	fleet := fmt.Sprintf("etcd://%s/fw-%d", endpoint, n)
	typo := fmt.Sprintf("etcd://%s/fwx-%d", endpoint, n)
	startReplica(t, fleet, tokenFile, fleetFile, "--replica-id", "hv-a")

	_, err := tryLaunch(t, []string{"--store", typo, "--admin-token-file", tokenFile, "--dev", "--store-must-exist"})
	if err == nil || !strings.Contains(err.Error(), "holds no fleet") || !strings.Contains(err.Error(), "--store-must-exist") {
		t.Fatalf("a replica on the typo with --store-must-exist: %v", err)
	}
	if keys := keysUnder(t, endpoint, fmt.Sprintf("/fwx-%d/", n)); len(keys) != 0 {
		t.Errorf("the refused start left keys under the typo's prefix: %v", keys)
	}
	joined := launch(t, "--store", fleet, "--admin-token-file", tokenFile, "--dev", "--store-must-exist", "--replica-id", "hv-b")
	if strings.Contains(joined.log.String(), "holds no fleet") {
		t.Errorf("a replica joining the fleet warns of an empty store:\n%s", joined.log.String())
	}

	s := startReplica(t, typo, tokenFile, fleetFile, "--replica-id", "hv-c")
	eventually(t, 30*time.Second, "the warning of an empty store", func() bool {
		return logLine(s.log.String(), "holds no fleet") != ""
	})
	st, err := s.admin.Status(t.Context())
	if err != nil || !strings.Contains(st.Store, fmt.Sprintf("/fwx-%d", n)) {
		t.Errorf("status of the replica on the typo: %+v, %v; want its store with the prefix", st, err)
	}
}

// keysUnder returns the keys of etcd at endpoint that begin with prefix.
func keysUnder(t *testing.T, endpoint, prefix string) []string {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	resp, err := c.Get(t.Context(), prefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, kv := range resp.Kvs {
		keys = append(keys, string(kv.Key))
	}
	return keys
}
