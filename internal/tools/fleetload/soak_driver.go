package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/forewarn/forewarn"
)

// campaignTypes are the types the soak's campaigns take in turn.
var campaignTypes = []forewarn.EventType{forewarn.Reboot, forewarn.Redeploy, forewarn.Freeze}

// userOps are the user operations the soak runs in turn: those a VM of an
// availability set takes.
var userOps = []forewarn.Operation{forewarn.OpRestart, forewarn.OpRedeploy}

// cancelEvery: every cancelEvery-th user operation's event is cancelled
// one step later, if it has not started by then.
const cancelEvery = 4

// maintenance is what the driver did.
type maintenance struct {
	Campaigns []string `json:"campaigns"` // their ids, in the order started
	// Operations created an event; Busy were refused (409) since the VM had
	// an event in flight, Limited (409) since its scope had the most user
	// operations in flight: both as the rules say.
	Operations int `json:"operations"`
	Busy       int `json:"operations_refused_busy"`
	Limited    int `json:"operations_refused_limit"`
	// Cancelled events were cancelled; TooLate had started (409) or ended
	// (404) by then, as the rules say.
	Cancelled int `json:"cancelled"`
	TooLate   int `json:"cancels_too_late"`
}

// driver keeps maintenance going through the admin API while the VMs
// poll: a campaign over every scope of the layout, the next one as soon as
// the last is done, and a user operation on a random VM every step.
type driver struct {
	fleet  fleetAPI
	layout layout
	rng    *rand.Rand
	errs   *errorLog
	did    maintenance

	campaign string // the campaign under way
	cancel   string // the event to cancel at the next step
}

func newDriver(fleet fleetAPI, l layout, seed uint64, errs *errorLog) *driver {
	return &driver{fleet: fleet, layout: l, rng: rand.New(rand.NewPCG(seed, 1<<40)), errs: errs}
}

// run takes a step at once and then every period until ctx ends.
func (d *driver) run(ctx context.Context, period time.Duration) {
	for next := time.Now(); sleepUntil(ctx, next); next = next.Add(period) {
		d.step(ctx)
	}
}

// step starts the next campaign if the last is done, cancels the event
// chosen at the last step, and runs a user operation.
func (d *driver) step(ctx context.Context) {
	if err := d.keepCampaign(ctx); err != nil && ctx.Err() == nil {
		d.errs.add("campaign: " + err.Error())
	}
	if d.cancel != "" {
		d.cancelEvent(ctx, d.cancel)
		d.cancel = ""
	}
	d.operate(ctx)
}

// keepCampaign starts a campaign if none is under way, or the last is
// done.
func (d *driver) keepCampaign(ctx context.Context) error {
	if d.campaign != "" {
		c, err := d.fleet.Campaign(ctx, d.campaign)
		if err != nil {
			return err
		}
		if c.State != forewarn.CampaignDone {
			return nil
		}
	}
	scopes := make([]string, d.layout.scopes)
	for s := range scopes {
		scopes[s] = d.layout.scopeName(s)
	}
	spec := forewarn.CampaignSpec{Type: campaignTypes[len(d.did.Campaigns)%len(campaignTypes)],
		Scopes: scopes, ParallelScopes: len(scopes)}
	c, err := d.fleet.StartCampaign(ctx, spec)
	if err != nil {
		return fmt.Errorf("start a %s campaign: %w", spec.Type, err)
	}
	d.campaign = c.ID
	d.did.Campaigns = append(d.did.Campaigns, c.ID)
	return nil
}

// operate runs the next user operation on a random VM.
func (d *driver) operate(ctx context.Context) {
	vm := d.layout.vmName(d.rng.IntN(d.layout.size()))
	op := userOps[(d.did.Operations+d.did.Busy+d.did.Limited)%len(userOps)]
	ev, err := d.fleet.Operate(ctx, vm, op)
	switch {
	case err == nil:
		d.did.Operations++
		if d.did.Operations%cancelEvery == 0 {
			d.cancel = ev.ID
		}
	case errors.Is(err, forewarn.ErrLimit):
		d.did.Limited++
	case errors.Is(err, forewarn.ErrConflict):
		d.did.Busy++
	case ctx.Err() == nil:
		d.errs.add(fmt.Sprintf("%s %s: %v", op, vm, err))
	}
}

// cancelEvent cancels an event of a user operation.
func (d *driver) cancelEvent(ctx context.Context, id string) {
	_, err := d.fleet.Cancel(ctx, id)
	switch {
	case err == nil:
		d.did.Cancelled++
	case errors.Is(err, forewarn.ErrConflict), errors.Is(err, forewarn.ErrNotFound):
		d.did.TooLate++
	case ctx.Err() == nil:
		d.errs.add(fmt.Sprintf("cancel %s: %v", id, err))
	}
}

// pause pauses the campaign under way, if any, so that its progress stops
// changing: Done plus the event in flight of each scope then counts its
// events.
func (d *driver) pause(ctx context.Context) error {
	if d.campaign == "" {
		return nil
	}
	c, err := d.fleet.Campaign(ctx, d.campaign)
	if err != nil || c.State != forewarn.CampaignRunning {
		return err
	}
	_, err = d.fleet.SteerCampaign(ctx, d.campaign, forewarn.PauseCampaign)
	if err != nil && !errors.Is(err, forewarn.ErrConflict) { // a conflict: it has just ended
		return fmt.Errorf("pause campaign %s: %w", d.campaign, err)
	}
	return nil
}
