package main

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
	"github.com/forewarn/forewarn/fleetfile"
)

// TestApplyFleetRace: replicas starting together apply the same fleet file
// at once; every one succeeds, and the fleet is made once.
func TestApplyFleetRace(t *testing.T) {
	srv := startServer(t)
	var yaml strings.Builder
	yaml.WriteString("scopes:\n")
	for i := range 4 {
		fmt.Fprintf(&yaml, "  - name: s%d\n    vms:\n", i)
		for j := range 3 {
			fmt.Fprintf(&yaml, "      - {name: s%d-vm%d, addresses: [10.9.%d.%d]}\n", i, j, i, j+1)
		}
	}
	file, err := fleetfile.Parse("fleet.yaml", []byte(yaml.String()))
	if err != nil {
		t.Fatal(err)
	}
	const replicas = 4
	errs := make([]error, replicas)
	var wg sync.WaitGroup
	for i := range replicas {
		wg.Go(func() {
			errs[i] = applyFleet(t.Context(), admin.NewClient(srv.adminURL, srv.token), file, slog.New(slog.DiscardHandler))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("replica %d: %v", i, err)
		}
	}
	vms, _, err := admin.NewClient(srv.adminURL, srv.token).VMs(t.Context(), forewarn.VMQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(vms) != 4*3+1 { // and the host's own VM
		t.Errorf("%d VMs after the race, want 13", len(vms))
	}
}
