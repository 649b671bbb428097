package sim

import (
	"testing"

	"github.com/forewarn/forewarn/internal/etcdtest"
)

// startEtcd starts a one-member etcd for the test and returns its client
// address.
func startEtcd(t *testing.T) string {
	t.Helper()
	_, addr := etcdtest.Start(t, "forewarn-sim")
	return addr
}
