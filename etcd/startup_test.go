package etcd_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/etcd"
	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/imds"
)

// TestStartReadsTheFleetOnce starts a replica on a fleet and checks that it
// reads every VM once, in New, not again to publish nor to start following
// the other replicas, and that what another replica changed in between is
// served all the same: the watch follows from the revision of that read.
func TestStartReadsTheFleetOnce(t *testing.T) {
	prefix := etcd.NewTestPrefix()
	clock := clockwork.NewFakeClockAt(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	other := startReplica(t, prefix, clock)
	ctx := t.Context()
	if _, err := other.fab.CreateScope(ctx, forewarn.ScopeSpec{Name: "web"}); err != nil {
		t.Fatal(err)
	}
	if _, err := other.fab.CreateVM(ctx, forewarn.VMSpec{Name: "web-0", Scope: "web", Addresses: []string{"10.1.0.4"}}); err != nil {
		t.Fatal(err)
	}

	store := &wholeReads{Store: etcd.MustOpen(t, prefix)}
	fab, err := fabric.New(ctx, fabric.Config{Store: store, Clock: clock, AlwaysEnabled: true})
	if err != nil {
		t.Fatal(err)
	}
	// Changed after New's read, before the replica follows.
	if _, err := other.fab.CreateVM(ctx, forewarn.VMSpec{Name: "web-1", Scope: "web", Addresses: []string{"10.1.0.5"}}); err != nil {
		t.Fatal(err)
	}
	srv := imds.New(imds.Config{Metadata: fab.Metadata(), Clock: clock})
	defer srv.Shutdown()
	if err := fab.PublishTo(ctx, srv); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- fab.Run(runCtx) }()
	defer func() { cancel(); <-ran }()

	r := &replica{fab: fab, imds: srv}
	r.awaitDocument(t, "10.1.0.5", func(d document) bool { return d.DocumentIncarnation > 0 })
	if n := store.n.Load(); n != 1 {
		t.Errorf("the replica read the whole fleet %d times, want 1", n)
	}
}

// wholeReads counts the transactions that read every VM. Its transactions
// tell their revision, as the store's do.
type wholeReads struct {
	*etcd.Store
	n atomic.Int64
}

func (s *wholeReads) View(ctx context.Context, fn func(forewarn.Tx) error) error {
	return s.Store.View(ctx, func(tx forewarn.Tx) error { return fn(wholeReadsTx{tx, &s.n}) })
}

type wholeReadsTx struct {
	forewarn.Tx
	n *atomic.Int64
}

func (t wholeReadsTx) VMs(scope string) ([]*forewarn.VM, error) {
	if scope == "" {
		t.n.Add(1)
	}
	return t.Tx.VMs(scope)
}

func (t wholeReadsTx) Revision() int64 { return t.Tx.(interface{ Revision() int64 }).Revision() }
