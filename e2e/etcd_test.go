package e2e

import (
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
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
	client := url.URL{Scheme: "http", Host: freeAddr(t)}
	peer := url.URL{Scheme: "http", Host: freeAddr(t)}
	cfg := embed.NewConfig()
	cfg.Name = "forewarn-e2e"
	cfg.Dir = t.TempDir()
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	cfg.LogLevel = "error"
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatalf("start embedded etcd: %v", err)
	}
	stop = sync.OnceFunc(e.Close)
	t.Cleanup(stop)
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		t.Fatalf("embedded etcd: %v", err)
	case <-time.After(time.Minute): // a guard, not a wait: ready comes first
		t.Fatal("embedded etcd not ready after a minute")
	}
	return stop, client.Host
}
