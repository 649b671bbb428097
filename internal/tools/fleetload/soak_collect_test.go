package main

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// historyFleet is an admin API that answers the events in flight and the
// history it holds; the rest of fleetAPI is not used.
type historyFleet struct {
	fleetAPI
	inFlight, history []*forewarn.Event
	limits            []int
}

func (f *historyFleet) Events(context.Context, forewarn.EventQuery) ([]*forewarn.Event, string, error) {
	return f.inFlight, "", nil
}

func (f *historyFleet) History(_ context.Context, limit int) ([]*forewarn.Event, error) {
	f.limits = append(f.limits, limit)
	return f.history[:min(limit, len(f.history))], nil
}

// TestCollector: an event read in flight and then in the history is kept
// as the history has it; a history that may have ended more events since
// the last read than a read returns is an error.
func TestCollector(t *testing.T) {
	now := time.Now()
	f := &historyFleet{inFlight: []*forewarn.Event{{ID: "a", Status: forewarn.Scheduled}}}
	c := newCollector(f)
	if err := c.collect(t.Context()); err != nil || len(c.events) != 1 || !c.events["a"].InFlight() {
		t.Fatalf("%v, %v", err, c.events)
	}
	f.inFlight = []*forewarn.Event{{ID: "b", Status: forewarn.Scheduled, Campaign: "c"}}
	f.history = []*forewarn.Event{{ID: "a", Outcome: forewarn.Completed, EndedAt: now}}
	if err := c.collect(t.Context()); err != nil || len(c.events) != 3-1 || c.events["a"].InFlight() ||
		c.byCampaign()["c"] != 1 {
		t.Fatalf("%v, %v", err, c.events)
	}
	f.limits = nil
	for i := range maxHistory {
		f.history = append(f.history, &forewarn.Event{ID: fmt.Sprint(i), Outcome: forewarn.Completed, EndedAt: now.Add(time.Second)})
	}
	err := c.collect(t.Context())
	if !errors.Is(err, errHistoryOverflow) || fmt.Sprint(f.limits) != "[1000 10000]" {
		t.Errorf("%v, limits %v", err, f.limits)
	}
	f.history[maxHistory-1].EndedAt = now.Add(-time.Minute) // reaches back far enough
	if err := c.collect(t.Context()); err != nil || len(c.events) != 2+maxHistory-1 {
		t.Errorf("%v, %d events", err, len(c.events))
	}
}
