package replbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/prometheus/client_golang/prometheus"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
	"github.com/forewarn/forewarn/bolt"
	"github.com/forewarn/forewarn/etcd"
	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/imds"
)

// adminToken is the admin API token every replica shares.
const adminToken = "replbench-token"

// maxUserOps is the limit of user operations in flight per scope: high
// enough never to refuse one here.
const maxUserOps = 1 << 20

// replica is one forewarn host, wired as `forewarn serve` wires it: a
// fabric on its own store client, and its metadata endpoint and admin API
// served over HTTP on loopback listeners.
type replica struct {
	fab      *fabric.Fabric
	metaURL  string // http://127.0.0.1:port, without a path
	adminURL string
}

// startReplica runs a replica named id on store until the test ends; the
// store must be closed after that (open it before). Notice is taken
// (AlwaysEnabled, as --dev does) and the metadata rate limit is off: the
// benchmarks measure writes, and every VM here asks more than 5 times a
// second.
func startReplica(tb testing.TB, store forewarn.Store, storeName, id string) *replica {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	clock := clockwork.NewRealClock()
	reg := prometheus.NewRegistry()
	log := slog.New(slog.NewTextHandler(io.Discard, nil)) // serve's info level, formatted, not written
	fab, err := fabric.New(ctx, fabric.Config{
		Store:         store,
		Clock:         clock,
		MaxUserOps:    maxUserOps,
		AlwaysEnabled: true,
		Replica:       forewarn.Replica{ID: id},
		StoreName:     storeName,
		Logger:        log,
		Registerer:    reg,
	})
	if err != nil {
		cancel()
		tb.Fatalf("replica %s: %v", id, err)
	}
	meta := imds.New(imds.Config{Metadata: fab.Metadata(), Clock: clock, Logger: log, Registerer: reg})
	if err := fab.PublishTo(ctx, meta); err != nil {
		cancel()
		tb.Fatalf("replica %s: %v", id, err)
	}
	adminAPI := admin.NewServer(admin.Config{Fleet: fab, Token: adminToken, Gatherer: reg, Registerer: reg, Logger: log})
	ran := make(chan error, 1)
	go func() { ran <- fab.Run(ctx) }()
	metaSrv, metaURL := serveHTTP(tb, meta)
	adminSrv, adminURL := serveHTTP(tb, adminAPI)
	tb.Cleanup(func() {
		meta.Shutdown()
		_ = metaSrv.Close()
		_ = adminSrv.Close()
		cancel()
		if err := <-ran; err != nil && !errors.Is(err, context.Canceled) {
			tb.Errorf("replica %s: control plane: %v", id, err)
		}
	})
	return &replica{fab: fab, metaURL: metaURL, adminURL: adminURL}
}

// serveHTTP serves h on a new listener on 127.0.0.1 and returns the server,
// to close, and its URL.
func serveHTTP(tb testing.TB, h http.Handler) (*http.Server, string) {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return srv, "http://" + ln.Addr().String()
}

// openBolt opens a bbolt store in a temporary directory, closed on cleanup.
func openBolt(tb testing.TB) (*bolt.Store, string) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "forewarn.db")
	s, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Error(err)
		}
	})
	return s, path
}

// openEtcd opens an etcd store on the default prefix of the etcd at
// endpoint, closed on cleanup: one per replica, as one per host.
func openEtcd(tb testing.TB, endpoint string) (*etcd.Store, string) {
	tb.Helper()
	s, err := etcd.Open(tb.Context(), etcd.Config{Endpoints: []string{endpoint}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Error(err)
		}
	})
	return s, endpoint + etcd.DefaultPrefix
}

// startEtcd starts a one-member etcd in a temporary directory on free
// loopback ports, closed on cleanup, and returns its client address. A
// port taken by another process between freeAddr and etcd's listen makes
// it try again, twice, on other ports.
func startEtcd(tb testing.TB) string {
	tb.Helper()
	var err error
	for range 3 {
		var client string
		if client, err = tryStartEtcd(tb); err == nil {
			return client
		}
	}
	tb.Fatalf("start embedded etcd: %v", err)
	return ""
}

// tryStartEtcd is one attempt of startEtcd.
func tryStartEtcd(tb testing.TB) (string, error) {
	client := url.URL{Scheme: "http", Host: freeAddr(tb)}
	peer := url.URL{Scheme: "http", Host: freeAddr(tb)}
	cfg := embed.NewConfig()
	cfg.Name = "forewarn-replbench"
	cfg.Dir = tb.TempDir()
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	// Errors come back from StartEtcd; its log would only complain of
	// closed listeners at Close.
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return "", err
	}
	select {
	case <-e.Server.ReadyNotify():
		tb.Cleanup(e.Close)
		return client.Host, nil
	case err := <-e.Err():
		e.Close()
		return "", err
	case <-time.After(time.Minute): // a guard, not a wait: ready comes first
		e.Close()
		return "", errors.New("embedded etcd not ready after a minute")
	}
}

// freeAddr returns a loopback address with a port nobody listens on.
func freeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// setup is a store and a number of replicas on it.
type setup struct {
	name     string
	etcd     bool
	replicas int
}

// setups are the configurations the write benchmarks compare; bbolt is
// one process's file, so it has one replica only.
var setups = []setup{
	{name: "bolt-1", replicas: 1},
	{name: "etcd-1", etcd: true, replicas: 1},
	{name: "etcd-2", etcd: true, replicas: 2},
}

// start opens the store (a fresh embedded etcd for etcd) and starts the
// replicas on it.
func (s setup) start(tb testing.TB) []*replica {
	tb.Helper()
	if !s.etcd {
		store, name := openBolt(tb)
		return []*replica{startReplica(tb, store, name, "bolt")}
	}
	endpoint := startEtcd(tb)
	var out []*replica
	for i := range s.replicas {
		store, name := openEtcd(tb, endpoint)
		out = append(out, startReplica(tb, store, name, fmt.Sprintf("replica-%c", 'a'+i)))
	}
	return out
}
