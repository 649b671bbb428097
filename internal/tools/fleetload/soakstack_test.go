package main

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/jonboulle/clockwork"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
	"github.com/forewarn/forewarn/bolt"
	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/imds"
)

// testStack is serve in-process, wired as `forewarn serve --dev` wires it:
// the control plane on a bbolt store, the metadata endpoint it publishes
// to, and the admin API with /metrics, each on loopback, with the scopes
// and VMs of a layout. The rate limit is 10 requests a second per VM,
// burst 20: the tests' VMs poll twice a second, so that the margin is
// serve's default for VMs polling once a second.
type testStack struct {
	metaURL, adminURL string
	client            *admin.Client
}

const testToken = "soak-test-token"

// newTestStack starts the stack for l with time scaled by timeScale, until
// the test ends.
func newTestStack(t *testing.T, l layout, timeScale float64) *testStack {
	t.Helper()
	store, err := bolt.Open(filepath.Join(t.TempDir(), "forewarn.db"), bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	clock := clockwork.NewRealClock()
	fab, err := fabric.New(ctx, fabric.Config{Store: store, Clock: clock, TimeScale: timeScale,
		AlwaysEnabled: true, Logger: log, Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	meta := imds.New(imds.Config{Metadata: fab.Metadata(), Clock: clock, RateLimit: 10, Logger: log})
	if err := fab.PublishTo(ctx, meta); err != nil {
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- fab.Run(ctx) }()
	metaSrv := httptest.NewServer(meta)
	adminSrv := httptest.NewServer(admin.NewServer(admin.Config{Fleet: fab, Token: testToken,
		Gatherer: reg, Registerer: reg, Logger: log}))
	t.Cleanup(func() {
		metaSrv.Close()
		adminSrv.Close()
		cancel()
		<-ran
		meta.Shutdown()
		store.Close()
	})
	s := &testStack{metaURL: metaSrv.URL, adminURL: adminSrv.URL, client: admin.NewClient(adminSrv.URL, testToken)}
	s.makeFleet(t, fab, l)
	return s
}

// makeFleet creates the scopes and VMs of l, as its fleet file declares
// them.
func (s *testStack) makeFleet(t *testing.T, fleet forewarn.Fleet, l layout) {
	t.Helper()
	addrs, err := l.addrs()
	if err != nil {
		t.Fatal(err)
	}
	for sc := range l.scopes {
		if _, err := fleet.CreateScope(t.Context(), forewarn.ScopeSpec{Name: l.scopeName(sc),
			Kind: forewarn.AvailabilitySet, UpdateDomains: l.updateDomains}); err != nil {
			t.Fatal(err)
		}
	}
	for i, a := range addrs {
		ud := l.updateDomain(i)
		if _, err := fleet.CreateVM(t.Context(), forewarn.VMSpec{Name: l.vmName(i), Scope: l.scopeName(i / l.vms),
			UpdateDomain: &ud, Addresses: []string{a.String()}}); err != nil {
			t.Fatal(err)
		}
	}
}
