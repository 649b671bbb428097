// Command mkfleet builds a large fleet in a store, bbolt or etcd, for the
// benchmarks of a 100,000-VM fleet: scopes of VMs spread over update
// domains, each VM with its own address, from 127.1.0.1 on by default, so
// that a load tool on the same host can call as any of them. It creates them
// as forewarn serve would, through the control plane, a batch of scopes per
// transaction.
//
//	go run ./internal/tools/mkfleet -data-dir DIR -scopes 10000 -vms 10
//	go run ./internal/tools/mkfleet -store etcd://127.0.0.1:2379/bench -scopes 10000 -vms 10
//
// -store takes the URL forewarn serve's --store takes (etcd.ParseURL; a
// user and password may be in it, TLS is not supported here). A batch the
// store finds too large (etcd's --max-txn-ops, 128 by default: a scope of
// 10 VMs writes about 31 keys) is halved until it fits, and the size that
// fits is kept for the rest.
//
// The store must be new: mkfleet stops at the first name that is taken.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/netip"
	"time"
)

func main() {
	dataDir := flag.String("data-dir", "./forewarn-data", "the data directory of forewarn serve; its forewarn.db is created (without -store)")
	storeURL := flag.String("store", "", "empty for bbolt in -data-dir, or etcd://host:port[,host:port...][/prefix] as forewarn serve --store takes it")
	scopes := flag.Int("scopes", 10000, "how many scopes")
	vms := flag.Int("vms", 10, "VMs per scope")
	uds := flag.Int("update-domains", 5, "update domains per scope")
	batch := flag.Int("batch", 100, "scopes created per transaction (halved while the store finds it too large)")
	first := flag.String("first-address", "127.1.0.1", "the address of the first VM; the others follow")
	flag.Parse()
	addr, err := netip.ParseAddr(*first)
	if err != nil {
		log.Fatalf("-first-address: %v", err)
	}
	ctx := context.Background()
	store, where, err := openStore(ctx, *dataDir, *storeURL)
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	start := time.Now()
	shape := shape{scopes: *scopes, vms: *vms, updateDomains: *uds}
	fitted, err := build(ctx, store, shape, *batch, addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("created %d scopes of %d VMs in %s in %v (%d scopes a transaction)\n",
		*scopes, *vms, where, time.Since(start).Round(time.Millisecond), fitted)
}
