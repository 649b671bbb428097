package fabric

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/memstore"
	"github.com/jonboulle/clockwork"
)

// flakyStore fails the next Update once when told to; as an Elector it
// makes its one replica the leader at once (the etcd code path of Run).
type flakyStore struct {
	forewarn.Store
	failNext atomic.Bool
}

func (s *flakyStore) Update(ctx context.Context, fn func(forewarn.Tx) error) error {
	if s.failNext.CompareAndSwap(true, false) {
		return errors.New("etcd: request timed out (store unavailable)")
	}
	return s.Store.Update(ctx, fn)
}

type electorStore struct{ *flakyStore }

func (s electorStore) Lead(ctx context.Context, id string) (context.Context, func(forewarn.Tx) error, error) {
	return ctx, nil, nil
}

// runRecordLost runs the actuator on an event and fails the record of its
// run once, as an etcd timeout would; it reports whether the event is still
// in flight once the scheduler has had its retries.
func runRecordLost(t *testing.T, elector bool) bool {
	b := memstore.New()
	defer b.Close()
	fs := &flakyStore{Store: b}
	var store forewarn.Store = fs
	if elector {
		store = electorStore{fs}
	}
	clock := clockwork.NewFakeClockAt(t0)
	act := &fakeActuator{runs: map[string]int{}, fail: map[string]bool{}, block: make(chan struct{}), entered: make(chan string, 10)}
	f, err := New(context.Background(), Config{Store: store, Clock: clock, Actuator: act, AlwaysEnabled: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()
	defer func() { cancel(); <-done }()
	if _, err := f.CreateVM(ctx, forewarn.VMSpec{Name: "solo"}); err != nil {
		t.Fatal(err)
	}
	e, err := f.Fail(ctx, "solo") // Started at once; the actuator runs it
	if err != nil {
		t.Fatal(err)
	}
	<-act.entered
	fs.failNext.Store(true) // the record of the run fails once (transient)
	close(act.block)
	// The scheduler retries after retryAfter on the fake clock; give it a
	// few, waiting for the goroutines in between (bounded in real time).
	for limit := time.Now().Add(10 * time.Second); time.Now().Before(limit); {
		if _, err := f.Event(ctx, e.ID); errors.Is(err, forewarn.ErrNotFound) {
			return false
		}
		clock.Advance(retryAfter)
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// TestLostActuationRecordIsRunAgain fails the store write that records an
// actuator's run: the run is done again and the event completes, on a
// single store and on a leader elected through the store (etcd's path,
// which has no other periodic tick).
func TestLostActuationRecordIsRunAgain(t *testing.T) {
	for _, elector := range []bool{false, true} {
		if runRecordLost(t, elector) {
			t.Errorf("elector %v: the event stays Started after its run's record failed", elector)
		}
	}
}
