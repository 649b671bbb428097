package etcd

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/forewarn/forewarn"
)

// TestJoinTakesOverItsOwnAnnouncement: an etcd restart leaves a replica's
// announcement on a lease it no longer keeps alive; announcing again, the
// replica takes its own key over at once, while another replica's
// announcement of the same ID still waits.
func TestJoinTakesOverItsOwnAnnouncement(t *testing.T) {
	s := mustOpen(t, newPrefix())
	self := forewarn.Replica{ID: "hv-a", Host: "h", PID: 7, Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	value, err := json.Marshal(self)
	if err != nil {
		t.Fatal(err)
	}
	lease, err := s.client.Grant(t.Context(), 60) // the old lease, outliving the restart
	if err != nil {
		t.Fatal(err)
	}
	key := s.replicaKey(self.ID)
	if _, err := s.client.Put(t.Context(), key, string(value), clientv3.WithLease(lease.ID)); err != nil {
		t.Fatal(err)
	}
	joinFor := func(r forewarn.Replica) error {
		v, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel()
		return s.joinOnce(ctx, key, string(v))
	}
	other := self
	other.PID = 8 // another process with the ID: it waits
	if err := joinFor(other); err != errIDTaken {
		t.Fatalf("another replica of the ID joined: %v", err)
	}
	joined := make(chan error, 1)
	go func() { joined <- joinFor(self) }() // holds the key until its context ends
	for deadline := time.Now().Add(2 * time.Second); ; {
		resp, err := s.client.Get(t.Context(), key)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Kvs) == 1 && resp.Kvs[0].Lease != int64(lease.ID) {
			break // on the replica's new lease
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica did not take its own announcement over: %+v, %v", resp.Kvs, <-joined)
		}
		time.Sleep(10 * time.Millisecond) // polling etcd, changed by the join's goroutine
	}
	if err := <-joined; err != nil {
		t.Errorf("join: %v", err)
	}
}
