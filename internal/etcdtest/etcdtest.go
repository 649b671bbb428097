// Package etcdtest starts a one-member embedded etcd for a test, on free
// loopback ports, for the packages that test against a real etcd
// (the end-to-end tests, the simulation).
package etcdtest

import (
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// Start starts an etcd named name in a temporary directory, closed on
// cleanup, and returns its client address and a stop the test may call
// early.
func Start(tb testing.TB, name string) (stop func(), addr string) {
	tb.Helper()
	return StartWith(tb, name, func(*embed.Config) {})
}

// StartWith is Start with the configuration changed by configure before
// etcd starts: a small QuotaBackendBytes, say.
func StartWith(tb testing.TB, name string, configure func(*embed.Config)) (stop func(), addr string) {
	tb.Helper()
	client := url.URL{Scheme: "http", Host: freeAddr(tb)}
	peer := url.URL{Scheme: "http", Host: freeAddr(tb)}
	cfg := embed.NewConfig()
	cfg.Name = name
	cfg.Dir = tb.TempDir()
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	cfg.LogLevel = "error"
	configure(cfg)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		tb.Fatalf("start embedded etcd: %v", err)
	}
	stop = sync.OnceFunc(e.Close)
	tb.Cleanup(stop)
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		tb.Fatalf("embedded etcd: %v", err)
	case <-time.After(time.Minute): // a guard, not a wait: ready comes first
		tb.Fatal("embedded etcd not ready after a minute")
	}
	return stop, client.Host
}

// freeAddr returns a loopback address no one listens on now.
func freeAddr(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("no loopback port for etcd: %v", err)
	}
	defer l.Close()
	return l.Addr().String()
}
