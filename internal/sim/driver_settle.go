package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/forewarn/forewarn"
)

// advance moves the clock, and ends the actuator's runs whose time has
// come, waiting for the fabric to record each.
func (d *driver) advance(op Op) error {
	d.m.now = d.m.now.Add(op.D)
	d.w.clock.Advance(op.D)
	return d.releaseRuns()
}

// releaseRuns ends the actuator's runs whose time has come.
func (d *driver) releaseRuns() error {
	if d.w.act == nil {
		return nil
	}
	// One at a time, each recorded before the next ends: the order the
	// fabric records them in shows (an event's Actuated).
	for _, r := range d.w.act.due(d.m.now) {
		before := d.w.store.count()
		res := d.w.act.release(r)
		if err := waitFor(d.w.store.poke, func() bool { return d.w.store.count() > before }); err != nil {
			return fmt.Errorf("the fabric did not record the run of the actuator on %s", r.key)
		}
		// and has let go of it, so that a Tick may run it again.
		if err := waitFor(nil, func() bool { return d.w.fab.RunsUnderWay() == d.w.act.count() }); err != nil {
			return fmt.Errorf("the fabric still holds the run of the actuator on %s once recorded", r.key)
		}
		delete(d.accepted, r.key)
		d.m.actuated(res)
	}
	return nil
}

// settle does what the fabric's scheduler would after the operation: a
// Tick, which the model follows; then it waits for the actuator runs the
// model expects, and checks everything.
func (d *driver) settle() error {
	if _, err := d.w.fab.Tick(d.w.fctx); err != nil {
		return fmt.Errorf("tick: %w", err)
	}
	var events []*forewarn.Event
	var err error
	if slices.ContainsFunc(d.m.eventsOf(""), d.m.handover) { // read only if the model needs it
		if events, _, err = d.w.fab.Events(d.ctx, forewarn.EventQuery{}); err != nil {
			return fmt.Errorf("events: %w", err)
		}
	}
	var campaigns []*forewarn.Campaign
	idFor := func(c, scope string) string {
		if campaigns == nil { // read only if the model needs it
			if campaigns, err = d.w.fab.Campaigns(d.ctx); err != nil {
				campaigns = []*forewarn.Campaign{}
			}
		}
		return progressIDs(campaigns...)(c, scope)
	}
	inFlight := map[string]bool{}
	for _, e := range events {
		inFlight[e.ID] = true
	}
	for _, e := range d.m.events {
		if d.m.handover(e) && !inFlight[e.ID] && d.m.conf.Actuator && events != nil {
			for _, r := range e.Resources {
				if !d.w.runs.ok[runKey(e.ID, r)] {
					return fmt.Errorf("event %s (%s), started under the simulated actuator, completed under exec without exec running on vm %s (DESIGN: the new actuator finishes what the old one left)", e.ID, e.Type, r)
				}
			}
		}
	}
	d.m.tick(func(id string) bool { return !inFlight[id] }, idFor)
	if err != nil {
		return fmt.Errorf("campaigns: %w", err)
	}
	// The runs change nothing until they end: check first, so that a
	// state the model did not expect is reported as such, not as a run
	// the fabric did not start.
	if err := d.checkAll(false); err != nil {
		return err
	}
	return d.awaitRuns()
}

// awaitRuns waits until the actuator runs on every VM the model expects,
// and on no other: a run whose event ended, or no longer names its VM
// (deleted, or the event completed by the admin), is stopped.
func (d *driver) awaitRuns() error {
	if d.w.act == nil {
		return nil
	}
	var want []string
	for _, e := range d.m.eventsOf("") {
		for _, r := range e.Resources {
			if d.m.expectsRun(e, r) {
				want = append(want, runKey(e.ID, r))
			}
		}
	}
	// A run that ended a moment ago may still hold its claim on the VM
	// when the Tick after a resolve --retry wants to run it again: the
	// fabric then pokes its scheduler, whose Tick starts it (Run); here the
	// driver ticks again while it waits.
	lastTick := time.Now()
	err := waitFor(d.w.act.poke, func() bool {
		for _, k := range want {
			if !d.w.act.isBlocked(strings.Split(k, "/")[0], strings.Split(k, "/")[1]) {
				if time.Since(lastTick) > 5*time.Millisecond {
					lastTick = time.Now()
					_, _ = d.w.fab.Tick(d.w.fctx)
				}
				return false
			}
		}
		for _, k := range d.w.act.keys() {
			if !slices.Contains(want, k) && d.accepted[k] {
				return false // still running, though no longer needed
			}
		}
		return true
	})
	if err != nil {
		var missing, stale []string
		for _, k := range want {
			if !d.w.act.isBlocked(strings.Split(k, "/")[0], strings.Split(k, "/")[1]) {
				missing = append(missing, k)
			}
		}
		for _, k := range d.w.act.keys() {
			if !slices.Contains(want, k) && d.accepted[k] {
				stale = append(stale, k)
			}
		}
		if len(missing) == 0 {
			return fmt.Errorf("the actuator still runs on %s (event/vm), whose event ended or no longer names the VM", strings.Join(stale, ", "))
		}
		return fmt.Errorf("the actuator was not started on %s (event/vm): a started event the server's actuator must carry out", strings.Join(missing, ", "))
	}
	for k := range d.accepted {
		if !slices.Contains(want, k) {
			delete(d.accepted, k)
		}
	}
	for _, k := range want {
		d.accepted[k] = true
	}
	_, twice := d.w.act.pending()
	if len(twice) > 0 {
		return fmt.Errorf("the actuator ran twice at once on %s", strings.Join(twice, ", "))
	}
	// A run starts only where the model expects one.
	for _, k := range d.w.act.keys() {
		if !d.accepted[k] {
			return fmt.Errorf("the actuator was started on %s (event/vm), which the model does not expect", k)
		}
	}
	return nil
}
