package etcd_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/etcd"
)

// awaitReplicas polls the roster until the IDs of the replicas announced
// are want, failing after five seconds, and returns the leader.
func awaitReplicas(tb testing.TB, s *etcd.Store, want ...string) (replicas []forewarn.Replica, leader string) {
	tb.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		replicas, leader, err := s.Replicas(tb.Context())
		if err != nil {
			tb.Fatal(err)
		}
		var ids []string
		for _, r := range replicas {
			ids = append(ids, r.ID)
		}
		if slices.Equal(ids, want) {
			return replicas, leader
		}
		if time.Now().After(deadline) {
			tb.Fatalf("replicas %q after five seconds, want %q", ids, want)
		}
		time.Sleep(10 * time.Millisecond) // polling etcd, changed by other goroutines
	}
}

// join runs Join of r on s until the returned stop is called.
func join(s *etcd.Store, r forewarn.Replica) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Join(ctx, r)
	}()
	return func() { cancel(); <-done }
}

// TestRosterJoinLeaveAndLeader: replicas show while they run, with what
// they announced and which one leads, and are gone once they stop; an ID
// already held waits for its holder to go.
func TestRosterJoinLeaveAndLeader(t *testing.T) {
	prefix := etcd.NewTestPrefix()
	one, two, three := etcd.MustOpen(t, prefix), etcd.MustOpen(t, prefix), etcd.MustOpen(t, prefix)
	stopB := join(two, forewarn.Replica{ID: "b", Host: "hv-b", PID: 2, AdminAddr: "127.0.0.1:2"})
	stopA := join(one, forewarn.Replica{ID: "a", Host: "hv-a", PID: 1, AdminAddr: "127.0.0.1:1"})
	replicas, leader := awaitReplicas(t, three, "a", "b")
	if leader != "" || replicas[0].Leader || replicas[1].Leader {
		t.Errorf("leader %q, replicas %+v before any campaign", leader, replicas)
	}
	if replicas[0].Host != "hv-a" || replicas[1].AdminAddr != "127.0.0.1:2" {
		t.Errorf("replicas %+v: not what they announced", replicas)
	}

	if _, _, err := two.Lead(t.Context(), "b"); err != nil {
		t.Fatal(err)
	}
	replicas, leader = awaitReplicas(t, three, "a", "b")
	if leader != "b" || replicas[0].Leader || !replicas[1].Leader {
		t.Errorf("leader %q, replicas %+v; want b leading", leader, replicas)
	}

	stopTaken := join(three, forewarn.Replica{ID: "a", Host: "impostor"})
	defer stopTaken()
	stopA()
	replicas, _ = awaitReplicas(t, three, "a", "b")
	deadline := time.Now().Add(5 * time.Second)
	for replicas[0].Host != "impostor" {
		if time.Now().After(deadline) {
			t.Fatalf("the second holder of a did not take it after the first left: %+v", replicas)
		}
		time.Sleep(10 * time.Millisecond)
		replicas, _ = awaitReplicas(t, three, "a", "b")
	}
	stopB()
	awaitReplicas(t, one, "a")
}

// TestStatusOfReplicas: each replica's fabric shows every replica, itself
// named as the one that answered, and the leader.
func TestStatusOfReplicas(t *testing.T) {
	prefix := etcd.NewTestPrefix()
	clock := clockwork.NewFakeClock()
	a := startNamedReplica(t, prefix, clock, "hv-a")
	b := startNamedReplica(t, prefix, clock, "hv-b")
	_, leader := awaitReplicas(t, a.store, "hv-a", "hv-b")
	deadline := time.Now().Add(5 * time.Second)
	for leader == "" {
		if time.Now().After(deadline) {
			t.Fatal("no replica leads after five seconds")
		}
		time.Sleep(10 * time.Millisecond)
		_, leader = awaitReplicas(t, a.store, "hv-a", "hv-b")
	}
	if leader != "hv-a" && leader != "hv-b" {
		t.Fatalf("leader %q, want hv-a or hv-b", leader)
	}
	for self, r := range map[string]*replica{"hv-a": a, "hv-b": b} {
		st, err := r.fab.Status(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if st.Leader != leader || len(st.Replicas) != 2 || st.Replicas[0].PID == 0 || st.Replicas[0].Started.IsZero() {
			t.Errorf("status %+v; want both replicas, host details filled in, leader %q", st, leader)
		}
		if st.Self != self {
			t.Errorf("%s's status answered by %q", self, st.Self)
		}
	}
}
