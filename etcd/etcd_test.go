package etcd

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/storetest"
)

// endpoint is the client address of the embedded etcd of the test binary.
var endpoint string

// prefixes numbers the prefixes of the tests, so that they do not collide.
var prefixes atomic.Int64

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "forewarn-etcd-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	e, err := startEtcd(dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		fmt.Fprintln(os.Stderr, "start embedded etcd:", err)
		os.Exit(1)
	}
	code := m.Run()
	e.Close()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// startEtcd starts a one-member etcd in dir on free loopback ports.
func startEtcd(dir string) (*embed.Etcd, error) {
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	client := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", ports[0])}
	peer := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", ports[1])}
	cfg := embed.NewConfig()
	cfg.Name = "forewarn-test"
	cfg.Dir = dir
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	cfg.LogLevel = "error"
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, err
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, err
	case <-time.After(time.Minute): // a guard, not a wait: ready comes first
		e.Close()
		return nil, fmt.Errorf("etcd not ready after a minute")
	}
	endpoint = client.Host
	return e, nil
}

// freePorts returns n loopback TCP ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer func() { _ = l.Close() }()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// newPrefix returns a prefix no other test uses.
func newPrefix() string { return fmt.Sprintf("/forewarn-test/%d", prefixes.Add(1)) }

// mustOpen opens a store on prefix of the embedded etcd, closed on cleanup.
func mustOpen(tb testing.TB, prefix string) *Store {
	tb.Helper()
	s, err := Open(tb.Context(), Config{Endpoints: []string{endpoint}, Prefix: prefix})
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return s
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) forewarn.Store { return mustOpen(t, newPrefix()) })
}

// TestTwoStoresLoseNoIncrement has two stores, two clients as two hosts
// would, bump one scope's incarnation at once.
func TestTwoStoresLoseNoIncrement(t *testing.T) {
	prefix := newPrefix()
	stores := []*Store{mustOpen(t, prefix), mustOpen(t, prefix)}
	err := stores[0].Update(t.Context(), func(tx forewarn.Tx) error {
		return tx.PutScope(&forewarn.Scope{Name: "Web", Kind: forewarn.ScaleSet, Incarnation: 1})
	})
	if err != nil {
		t.Fatal(err)
	}
	const rounds = 50
	var calls atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, len(stores)*rounds)
	for _, s := range stores {
		wg.Go(func() {
			for range rounds {
				errs <- s.Update(t.Context(), func(tx forewarn.Tx) error {
					calls.Add(1)
					sc, err := tx.Scope("web")
					if err != nil {
						return err
					}
					sc.Incarnation++
					return tx.PutScope(sc)
				})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Update: %v", err)
		}
	}
	for i, s := range stores {
		var got int64
		err := s.View(t.Context(), func(tx forewarn.Tx) error {
			sc, err := tx.Scope("WEB")
			if err == nil {
				got = sc.Incarnation
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(1 + len(stores)*rounds); got != want {
			t.Errorf("store %d reads incarnation %d, want %d", i, got, want)
		}
	}
	t.Logf("%d updates ran fn %d times", len(stores)*rounds, calls.Load())
}

// TestConcurrentCreatesKeepIndex has two stores create and delete VMs at
// once: every list must match the records exactly.
func TestConcurrentCreatesKeepIndex(t *testing.T) {
	prefix := newPrefix()
	stores := []*Store{mustOpen(t, prefix), mustOpen(t, prefix)}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i, s := range stores {
		wg.Go(func() {
			for j := range 20 {
				name := fmt.Sprintf("vm-%d-%02d", i, j)
				errs <- s.Update(t.Context(), func(tx forewarn.Tx) error {
					return tx.PutVM(&forewarn.VM{Name: name, Scope: "web"})
				})
				if j%2 == 1 {
					errs <- s.Update(t.Context(), func(tx forewarn.Tx) error { return tx.DeleteVM(name) })
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Update: %v", err)
		}
	}
	var vms []*forewarn.VM
	err := stores[1].View(t.Context(), func(tx forewarn.Tx) error {
		var err error
		vms, err = tx.VMs("web")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(vms) != 20 {
		t.Fatalf("VMs after 40 creates and 20 deletes: %d, want 20", len(vms))
	}
	for i, vm := range vms {
		if want := fmt.Sprintf("vm-%d-%02d", i/10, i%10*2); vm.Name != want {
			t.Errorf("VM %d is %q, want %q", i, vm.Name, want)
		}
	}
}

// TestUpdateErrorOfEtcd checks that an Update whose context ends during fn
// returns the context's error, not a panic.
func TestUpdateErrorOfEtcd(t *testing.T) {
	s := mustOpen(t, newPrefix())
	ctx, cancel := context.WithCancel(t.Context())
	var readErr error
	err := s.Update(ctx, func(tx forewarn.Tx) error {
		cancel()
		_, readErr = tx.Scope("web")
		return readErr
	})
	if err == nil || !errorsIsCanceled(err) {
		t.Fatalf("Update = %v, want a cancelled context", err)
	}
	if readErr == nil {
		t.Fatal("the read in fn succeeded with a cancelled context")
	}
}

// TestLargeFleet: a transaction may read far more keys than etcd lets one
// request compare or fetch (--max-txn-ops, 128 in the embedded etcd), and
// two writers still cannot lose an update.
func TestLargeFleet(t *testing.T) {
	const vms = 150
	prefix := newPrefix()
	s := mustOpen(t, prefix)
	ctx := t.Context()
	if err := s.Update(ctx, func(tx forewarn.Tx) error {
		return tx.PutScope(&forewarn.Scope{Name: "big", Incarnation: 1})
	}); err != nil {
		t.Fatal(err)
	}
	for i := range vms {
		err := s.Update(ctx, func(tx forewarn.Tx) error {
			if _, err := tx.VMs("big"); err != nil { // reads every VM so far
				return err
			}
			return tx.PutVM(&forewarn.VM{Name: fmt.Sprintf("big-%03d", i), Scope: "big"})
		})
		if err != nil {
			t.Fatalf("VM %d: %v", i, err)
		}
	}
	other := mustOpen(t, prefix)
	var wg sync.WaitGroup
	for _, store := range []*Store{s, other} {
		wg.Go(func() {
			for range 10 {
				err := store.Update(ctx, func(tx forewarn.Tx) error {
					if _, err := tx.VMs("big"); err != nil {
						return err
					}
					sc, err := tx.Scope("big")
					if err != nil {
						return err
					}
					sc.Incarnation++
					return tx.PutScope(sc)
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	err := s.View(ctx, func(tx forewarn.Tx) error {
		list, err := tx.VMs("big")
		if err != nil {
			return err
		}
		sc, err := tx.Scope("big")
		if err != nil {
			return err
		}
		if len(list) != vms || sc.Incarnation != 21 {
			t.Errorf("%d VMs, incarnation %d; want %d and 21", len(list), sc.Incarnation, vms)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
