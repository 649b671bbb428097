package main

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"

	"github.com/jonboulle/clockwork"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/bolt"
	"github.com/forewarn/forewarn/etcd"
	"github.com/forewarn/forewarn/fabric"
)

// shape is the fleet mkfleet builds.
type shape struct {
	scopes, vms, updateDomains int
}

// openStore opens the store of -store: bbolt in dir/forewarn.db if url is
// empty, else the etcd cluster and prefix of the URL, parsed as forewarn
// serve --store parses it. where names it for messages.
func openStore(ctx context.Context, dir, url string) (s forewarn.Store, where string, err error) {
	if url == "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, "", err
		}
		where = filepath.Join(dir, "forewarn.db")
		s, err := bolt.Open(where, bolt.Options{})
		return s, where, err
	}
	cfg, err := etcd.ParseURL(url)
	if err != nil {
		return nil, "", fmt.Errorf("-store: %w", err)
	}
	es, err := etcd.Open(ctx, cfg)
	if err != nil {
		return nil, "", err
	}
	return es, etcd.Redact(url), nil
}

// build creates the fleet in the store, batch scopes (and their VMs) a
// transaction, halving the batch while the store finds it too large. It
// returns the batch that fitted.
func build(ctx context.Context, store forewarn.Store, sh shape, batch int, addr netip.Addr) (int, error) {
	fab, err := fabric.New(ctx, fabric.Config{Store: store, Clock: clockwork.NewRealClock()})
	if err != nil {
		return 0, err
	}
	batch = max(batch, 1)
	for first := 0; first < sh.scopes; {
		n := min(batch, sh.scopes-first)
		scopes, vms, next := specs(sh, first, n, addr)
		err := fab.CreateBatch(ctx, scopes, vms)
		if errors.Is(err, forewarn.ErrTooLarge) && batch > 1 {
			batch /= 2
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("scopes from %d: %w", first, err)
		}
		first, addr = first+n, next
	}
	return batch, nil
}

// specs returns the scopes first to first+n-1 and their VMs, the VMs'
// addresses from addr on, and the address after the last.
func specs(sh shape, first, n int, addr netip.Addr) ([]forewarn.ScopeSpec, []forewarn.VMSpec, netip.Addr) {
	scopes := make([]forewarn.ScopeSpec, 0, n)
	vms := make([]forewarn.VMSpec, 0, n*sh.vms)
	for s := first; s < first+n; s++ {
		name := fmt.Sprintf("s%05d", s)
		scopes = append(scopes, forewarn.ScopeSpec{Name: name, UpdateDomains: sh.updateDomains})
		for v := range sh.vms {
			ud := v % sh.updateDomains
			vms = append(vms, forewarn.VMSpec{
				Name: fmt.Sprintf("%s-%d", name, v), Scope: name, UpdateDomain: &ud,
				Addresses: []string{addr.String()},
			})
			addr = addr.Next()
		}
	}
	return scopes, vms, addr
}
