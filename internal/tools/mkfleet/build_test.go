package main

import (
	"context"
	"net/netip"
	"testing"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/etcdtest"
)

// TestBuildEtcd builds a fleet in a real etcd with its default
// --max-txn-ops (128), from a batch far over it: the batch is halved until
// a transaction fits, and every scope, VM and address is there.
func TestBuildEtcd(t *testing.T) {
	_, addr := etcdtest.Start(t, "mkfleet")
	ctx := context.Background()
	store, _, err := openStore(ctx, "", "etcd://"+addr+"/mkfleet")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	sh := shape{scopes: 9, vms: 10, updateDomains: 5}
	fitted, err := build(ctx, store, sh, 100, netip.MustParseAddr("127.1.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	if fitted >= 100 || fitted < 1 {
		t.Errorf("batch that fitted = %d, want it halved from 100", fitted)
	}
	checkFleet(t, store, sh, "127.1.0.90")
}

// TestBuildBolt builds the same fleet in bbolt, in one transaction.
func TestBuildBolt(t *testing.T) {
	ctx := context.Background()
	store, _, err := openStore(ctx, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	sh := shape{scopes: 9, vms: 10, updateDomains: 5}
	fitted, err := build(ctx, store, sh, 100, netip.MustParseAddr("127.1.0.1"))
	if err != nil || fitted != 100 {
		t.Fatalf("build = %d, %v; want 100, nil", fitted, err)
	}
	checkFleet(t, store, sh, "127.1.0.90")
}

// checkFleet checks that the store holds the scopes and VMs of sh, spread
// over the update domains, and that the last VM owns the last address.
func checkFleet(t *testing.T, store forewarn.Store, sh shape, last string) {
	t.Helper()
	err := store.View(context.Background(), func(tx forewarn.Tx) error {
		scopes, err := tx.Scopes()
		if err != nil {
			return err
		}
		if len(scopes) != sh.scopes {
			t.Errorf("%d scopes, want %d", len(scopes), sh.scopes)
		}
		vms, err := tx.VMs("")
		if err != nil {
			return err
		}
		if len(vms) != sh.scopes*sh.vms {
			t.Errorf("%d VMs, want %d", len(vms), sh.scopes*sh.vms)
		}
		perDomain := map[int]int{}
		for _, vm := range vms {
			perDomain[vm.UpdateDomain]++
		}
		if len(perDomain) != sh.updateDomains {
			t.Errorf("VMs per update domain %v, want %d domains", perDomain, sh.updateDomains)
		}
		at, err := tx.VMsAt(last)
		if err != nil {
			return err
		}
		want := "s00008-9"
		if len(at) != 1 || at[0].Name != want {
			t.Errorf("VMs at %s = %v, want %s", last, at, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
