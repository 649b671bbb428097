package fleetfile_test

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/fleetfile"
	"github.com/forewarn/forewarn/internal/fabrictest"
)

// TestApplyFleetRace: replicas starting together apply the same fleet file
// at once; every one succeeds, and the fleet is made once.
func TestApplyFleetRace(t *testing.T) {
	fleet := mustStartHost(t)
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
			errs[i] = fleetfile.ApplyRetrying(t.Context(), fleet, file, slog.New(slog.DiscardHandler))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("replica %d: %v", i, err)
		}
	}
	vms, _, err := fleet.VMs(t.Context(), forewarn.VMQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(vms) != 4*3+1 { // and the host's own VM
		t.Errorf("%d VMs after the race, want 13", len(vms))
	}
}

// mustStartHost returns the control plane as serve starts it on one host,
// over an in-memory store: with the host's own VM.
func mustStartHost(tb testing.TB) *fabric.Fabric {
	tb.Helper()
	fab := fabrictest.New(tb, fabric.Config{})
	if _, err := fab.EnsureDefaultVM(tb.Context(), "host", []string{"127.0.0.1", "::1"}); err != nil {
		tb.Fatal(err)
	}
	return fab
}
