// Command mkfleet builds a large fleet in a bbolt store, for the benchmarks
// of a 100,000-VM fleet: scopes of VMs spread over update domains, each VM
// with its own address, from 127.1.0.1 on by default, so that a load tool
// on the same host can call as any of them. It creates them as forewarn serve would,
// through the control plane, a batch of scopes per transaction.
//
//	go run ./internal/tools/mkfleet -data-dir DIR -scopes 10000 -vms 10
//
// The store must be new: mkfleet stops at the first name that is taken.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/netip"
	"os"
	"path/filepath"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/bolt"
	"github.com/forewarn/forewarn/fabric"
)

func main() {
	dataDir := flag.String("data-dir", "./forewarn-data", "the data directory of forewarn serve; its forewarn.db is created")
	scopes := flag.Int("scopes", 10000, "how many scopes")
	vms := flag.Int("vms", 10, "VMs per scope")
	uds := flag.Int("update-domains", 5, "update domains per scope")
	batch := flag.Int("batch", 100, "scopes created per transaction")
	first := flag.String("first-address", "127.1.0.1", "the address of the first VM; the others follow")
	flag.Parse()
	addr, err := netip.ParseAddr(*first)
	if err != nil {
		log.Fatalf("-first-address: %v", err)
	}
	start := time.Now()
	if err := build(*dataDir, *scopes, *vms, *uds, *batch, addr); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("created %d scopes of %d VMs in %s in %v\n", *scopes, *vms, *dataDir, time.Since(start).Round(time.Millisecond))
}

// build creates the fleet in DIR/forewarn.db.
func build(dir string, scopes, vms, uds, batch int, addr netip.Addr) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	store, err := bolt.Open(filepath.Join(dir, "forewarn.db"), bolt.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	ctx := context.Background()
	fab, err := fabric.New(ctx, fabric.Config{Store: store, Clock: clockwork.NewRealClock()})
	if err != nil {
		return err
	}
	for first := 0; first < scopes; first += batch {
		var scopeSpecs []forewarn.ScopeSpec
		var vmSpecs []forewarn.VMSpec
		for s := first; s < min(first+batch, scopes); s++ {
			name := fmt.Sprintf("s%05d", s)
			scopeSpecs = append(scopeSpecs, forewarn.ScopeSpec{Name: name, UpdateDomains: uds})
			for v := range vms {
				ud := v % uds
				vmSpecs = append(vmSpecs, forewarn.VMSpec{
					Name: fmt.Sprintf("%s-%d", name, v), Scope: name, UpdateDomain: &ud,
					Addresses: []string{addr.String()},
				})
				addr = addr.Next()
			}
		}
		if err := fab.CreateBatch(ctx, scopeSpecs, vmSpecs); err != nil {
			return fmt.Errorf("scopes from %d: %w", first, err)
		}
	}
	return nil
}
