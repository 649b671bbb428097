package etcd_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/etcd"
	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/imds"
)

// replica is one forewarn host: a fabric on its own store client, and its
// metadata endpoint.
type replica struct {
	fab   *fabric.Fabric
	imds  *imds.Server
	store *etcd.Store
}

// startReplica runs a fabric on a store of prefix, publishing to its own
// metadata endpoint, until the test ends.
func startReplica(tb testing.TB, prefix string, clock *clockwork.FakeClock) *replica {
	tb.Helper()
	return startNamedReplica(tb, prefix, clock, "")
}

// startNamedReplica is startReplica with the replica id; its store is
// in the replica.
func startNamedReplica(tb testing.TB, prefix string, clock *clockwork.FakeClock, id string) *replica {
	tb.Helper()
	return startReplicaWith(tb, prefix, fabric.Config{Clock: clock, AlwaysEnabled: true, Replica: forewarn.Replica{ID: id}})
}

// startReplicaWith is startReplica with the fabric's config; its Store is
// set here.
func startReplicaWith(tb testing.TB, prefix string, cfg fabric.Config) *replica {
	tb.Helper()
	store := etcd.MustOpen(tb, prefix)
	cfg.Store = store
	clock := cfg.Clock
	fab, err := fabric.New(tb.Context(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	srv := imds.New(imds.Config{Metadata: fab.Metadata(), Clock: clock})
	if err := fab.PublishTo(tb.Context(), srv); err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- fab.Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		<-ran
		srv.Shutdown()
	})
	return &replica{fab: fab, imds: srv, store: store}
}

// document is the part of the Scheduled Events document the test reads.
type document struct {
	DocumentIncarnation int64
	Events              []struct{ EventId, EventStatus string }
}

// document returns the Scheduled Events document the replica serves to
// the caller at addr.
func (r *replica) document(tb testing.TB, addr string) document {
	tb.Helper()
	req := httptest.NewRequest(http.MethodGet, "/metadata/scheduledevents?api-version=2020-07-01", nil)
	req.Header.Set("Metadata", "true")
	req.RemoteAddr = addr + ":40000"
	rec := httptest.NewRecorder()
	r.imds.ServeHTTP(rec, req)
	var doc document
	if rec.Code != http.StatusOK {
		return doc // not served yet: the VM is unknown to this replica
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		tb.Fatalf("decode document: %v: %s", err, rec.Body)
	}
	return doc
}

// awaitDocument polls the replica's document until ok accepts it, failing
// the test after a second.
func (r *replica) awaitDocument(tb testing.TB, addr string, ok func(document) bool) document {
	tb.Helper()
	deadline := time.Now().Add(time.Second)
	for {
		doc := r.document(tb, addr)
		if ok(doc) {
			return doc
		}
		if time.Now().After(deadline) {
			tb.Fatalf("replica still serves %+v after a second", doc)
		}
		time.Sleep(5 * time.Millisecond) // polling a change made by another goroutine
	}
}

// TestReplicasFollowEachOther has two fabrics on one prefix: what is done
// through A shows on B's metadata endpoint, without B writing anything.
func TestReplicasFollowEachOther(t *testing.T) {
	prefix := etcd.NewTestPrefix()
	clock := clockwork.NewFakeClockAt(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	a, b := startReplica(t, prefix, clock), startReplica(t, prefix, clock)
	ctx := t.Context()
	const addr = "10.1.0.4"
	if _, err := a.fab.CreateScope(ctx, forewarn.ScopeSpec{Name: "web"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.fab.CreateVM(ctx, forewarn.VMSpec{Name: "web-0", Scope: "web", Addresses: []string{addr}}); err != nil {
		t.Fatal(err)
	}
	e, err := a.fab.Operate(ctx, "web-0", forewarn.OpRestart)
	if err != nil {
		t.Fatal(err)
	}
	scheduled := b.awaitDocument(t, addr, func(d document) bool {
		return len(d.Events) == 1 && d.Events[0].EventStatus == "Scheduled"
	})
	if scheduled.Events[0].EventId != e.ID {
		t.Fatalf("B serves event %s, want %s", scheduled.Events[0].EventId, e.ID)
	}
	if err := a.fab.Metadata().Approve(ctx, "web-0", []string{e.ID}); err != nil {
		t.Fatal(err)
	}
	started := b.awaitDocument(t, addr, func(d document) bool {
		return len(d.Events) == 1 && d.Events[0].EventStatus == "Started"
	})
	if started.DocumentIncarnation <= scheduled.DocumentIncarnation {
		t.Errorf("incarnation went from %d to %d", scheduled.DocumentIncarnation, started.DocumentIncarnation)
	}
	if got := a.document(t, addr); got.DocumentIncarnation != started.DocumentIncarnation {
		t.Errorf("A serves incarnation %d, B %d", got.DocumentIncarnation, started.DocumentIncarnation)
	}
}
