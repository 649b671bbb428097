package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/forewarn/forewarn"
)

// History pages: the collector asks for historyPage events, and for
// maxHistory if those may not reach back to its last read.
const (
	historyPage = 1000
	maxHistory  = 10000 // the admin API's most
)

// historyOverlap is how far back of its last read the history must reach:
// an event's EndedAt is taken before its transaction commits, so one that
// ended just before a read may have reached the history just after.
const historyOverlap = 5 * time.Second

// errHistoryOverflow is a history that ended more events between two reads
// than one read returns: events may have been missed.
var errHistoryOverflow = errors.New("more events ended between two reads of the history than a read returns")

// collector gathers every event the server has had: those in flight and
// the history. It reads both now and then during the load, so that the
// history, which keeps only the last --history-keep events and returns at
// most 10,000, never ends more events between two reads than it returns.
type collector struct {
	fleet    fleetAPI
	events   map[string]*forewarn.Event
	lastRead time.Time // when the last read of the history began
}

func newCollector(fleet fleetAPI) *collector {
	return &collector{fleet: fleet, events: make(map[string]*forewarn.Event)}
}

// collect reads the events in flight, then the history: an event that ends
// in between is in the second. An event ended replaces what was read of
// it in flight.
func (c *collector) collect(ctx context.Context) error {
	inFlight, _, err := c.fleet.Events(ctx, forewarn.EventQuery{})
	if err != nil {
		return fmt.Errorf("list the events in flight: %w", err)
	}
	for _, e := range inFlight {
		if old, ok := c.events[e.ID]; !ok || old.InFlight() {
			c.events[e.ID] = e
		}
	}
	read := time.Now()
	history, err := c.readHistory(ctx)
	if err != nil {
		return err
	}
	for _, e := range history {
		c.events[e.ID] = e
	}
	c.lastRead = read
	return nil
}

// readHistory reads the history back to the last read, less the overlap.
func (c *collector) readHistory(ctx context.Context) ([]*forewarn.Event, error) {
	for _, limit := range []int{historyPage, maxHistory} {
		h, err := c.fleet.History(ctx, limit)
		if err != nil {
			return nil, fmt.Errorf("read the history: %w", err)
		}
		if len(h) < limit || h[len(h)-1].EndedAt.Before(c.lastRead.Add(-historyOverlap)) {
			return h, nil
		}
	}
	return nil, fmt.Errorf("%w (%d since %s): read it more often (-collect-every)",
		errHistoryOverflow, maxHistory, c.lastRead.Format(time.RFC3339))
}

// run collects every period until ctx ends, noting errors in errs.
func (c *collector) run(ctx context.Context, period time.Duration, errs *errorLog) {
	for sleepUntil(ctx, time.Now().Add(period)) {
		if err := c.collect(ctx); err != nil && ctx.Err() == nil {
			errs.add("collect events: " + err.Error())
		}
	}
}

// byCampaign counts the events collected of each campaign.
func (c *collector) byCampaign() map[string]int {
	n := make(map[string]int)
	for _, e := range c.events {
		if e.Campaign != "" {
			n[e.Campaign]++
		}
	}
	return n
}
