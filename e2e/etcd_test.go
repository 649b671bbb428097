package e2e

import (
	"strings"
	"sync"
	"testing"

	"github.com/forewarn/forewarn/internal/etcdtest"
)

// syncLog collects a process's stderr; the test may read it while the
// process writes.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startEtcd starts a one-member etcd in a temporary directory on free
// loopback ports, closed on cleanup, and returns its client address.
func startEtcd(t testing.TB) string {
	t.Helper()
	_, addr := startEmbeddedEtcd(t)
	return addr
}

// startEmbeddedEtcd is startEtcd that also returns a stop, which the test
// may call early.
func startEmbeddedEtcd(t testing.TB) (stop func(), addr string) {
	t.Helper()
	return etcdtest.Start(t, "forewarn-e2e")
}
