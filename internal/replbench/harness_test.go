package replbench

import (
	"testing"

	"github.com/forewarn/forewarn"
)

// harnessOps is the number of operations TestWriteRounds runs on its fleet
// of 8 VMs: two full rounds and half of a third.
const harnessOps = 20

// TestWriteRounds runs the rounds of the write benchmarks for a few
// operations on a small fleet (8 scopes of 1 VM), on every setup: every
// operation and every reset between rounds must succeed, and the rounds
// must leave the fleet as designed.
func TestWriteRounds(t *testing.T) {
	for _, s := range setups {
		t.Run(s.name+"/operate", func(t *testing.T) {
			f := newFleet(t, workers, 1)
			rs, replicas := operateRounds(t, s, f)
			runCount(t, rs, harnessOps)
			// The restarts of the last round are in flight; those of the
			// two before were cancelled.
			checkFleet(t, replicas[len(replicas)-1], map[forewarn.EventStatus]int{forewarn.Scheduled: 4}, 16)
		})
		t.Run(s.name+"/approve", func(t *testing.T) {
			f := newFleet(t, workers, 1)
			rs, replicas := approveRounds(t, s, f)
			runCount(t, rs, harnessOps)
			// Of the last round, 4 events were approved and 4 are left
			// Scheduled; those of the two before completed.
			checkFleet(t, replicas[len(replicas)-1],
				map[forewarn.EventStatus]int{forewarn.Started: 4, forewarn.Scheduled: 4}, 16)
		})
	}
}

// runCount runs rs for n operations.
func runCount(t *testing.T, rs rounds, n int) {
	t.Helper()
	lp := fixedLoop(n)
	if got := rs.run(t, &lp); got != n {
		t.Fatalf("ran %d operations, want %d", got, n)
	}
}

// checkFleet checks the events in flight, by status, and the length of the
// history, as r reads them from the store.
func checkFleet(t *testing.T, r *replica, want map[forewarn.EventStatus]int, history int) {
	t.Helper()
	events, _, err := r.fab.Events(t.Context(), forewarn.EventQuery{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[forewarn.EventStatus]int{}
	for _, e := range events {
		got[e.Status]++
		if e.Status == forewarn.Started && !forewarn.SameName(e.ApprovedBy, e.Resources[0]) {
			t.Errorf("event %s of %v approved by %q", e.ID, e.Resources, e.ApprovedBy)
		}
	}
	if len(got) != len(want) {
		t.Errorf("events in flight by status: %v, want %v", got, want)
	}
	for status, n := range want {
		if got[status] != n {
			t.Errorf("events in flight by status: %v, want %v", got, want)
		}
	}
	ended, err := r.fab.History(t.Context(), 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(ended) != history {
		t.Errorf("history holds %d events, want %d", len(ended), history)
	}
}
