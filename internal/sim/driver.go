package sim

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/fleetfile"
)

type driver struct {
	ctx   context.Context
	opts  Options
	w     *world
	m     *model
	obs   *observations
	step  int
	stats Stats
	// campaignsSeen is the model's campaigns when last compared.
	campaignsSeen, chaosSeen string
	// owners are the scope/VM of each address when last checked.
	owners map[string]string
	// accepted are the runs of the actuator the model expected when they
	// started, by runKey.
	accepted map[string]bool
	// histCursor is the cursor of the first page of the history at the
	// last check of its pages, and histRest what followed it, newest first.
	histCursor string
	histRest   []*forewarn.Event
}

// expect compares an admin call's error with the kind the model expects.
func expect(what string, got, want error) error {
	switch {
	case want == nil && got == nil:
		return nil
	case want == nil:
		return fmt.Errorf("%s: got error %v, the model expects success", what, got)
	case got == nil:
		return fmt.Errorf("%s: succeeded, the model expects an error %q", what, want)
	case !errors.Is(got, want):
		return fmt.Errorf("%s: got error %v, the model expects one of kind %q", what, got, want)
	}
	return nil
}

// masked keeps an operation away from the known defects the options mask:
// it reports whether to skip it, and changes it if need be.
func (d *driver) masked(op *Op) bool {
	m := d.m
	gone := func(name string) bool { return m.usedNames[key(name)] && m.scopes[key(name)] == nil }
	if op.Kind == OpRestart && ((d.opts.NoExecToSim && m.conf.Actuator) || (d.opts.NoSimToExec && !m.conf.Actuator)) {
		op.Conf.Actuator = m.conf.Actuator
	}
	if !d.opts.NoRecreate {
		return false
	}
	switch op.Kind {
	case OpCreateScope:
		return gone(op.Scope.Name)
	case OpCreateVM:
		return op.VM.Scope == "" && gone(op.VM.Name)
	case OpApply:
		f, err := fleetfile.Parse("sim.yaml", []byte(op.Fleet))
		if err != nil {
			return false
		}
		for _, s := range f.Scopes {
			if gone(s.Spec.Name) {
				return true
			}
		}
		for _, v := range f.VMs {
			if gone(v.Spec.Name) {
				return true
			}
		}
	}
	return false
}

func (d *driver) do(op Op) error {
	if d.masked(&op) {
		return nil
	}
	ctx, fl, m := d.ctx, d.w.fleet, d.m
	switch op.Kind {
	case OpCreateScope:
		_, err := fl.CreateScope(ctx, op.Scope)
		return expect("create scope", err, m.createScope(op.Scope))
	case OpDeleteScope:
		return expect("delete scope", fl.DeleteScope(ctx, op.Name), m.deleteScope(op.Name))
	case OpCreateVM:
		vm, err := fl.CreateVM(ctx, op.VM)
		id := ""
		if err == nil {
			id = vm.ID
		}
		return expect("create vm", err, m.createVM(op.VM, id))
	case OpDeleteVM:
		return expect("delete vm", fl.DeleteVM(ctx, op.Name), m.deleteVM(op.Name))
	case OpOperate:
		e, err := fl.Operate(ctx, op.Name, op.Op)
		return d.created("operate", e, err, func(id string) error { return m.operate(op.Name, op.Op, id) })
	case OpFail:
		e, err := fl.Fail(ctx, op.Name)
		return d.created("fail", e, err, func(id string) error { return m.failVM(op.Name, id) })
	case OpDegrade:
		e, err := fl.Degrade(ctx, op.Name, op.D)
		return d.created("degrade", e, err, func(id string) error { return m.degrade(op.Name, op.D, id) })
	case OpApprove:
		id := d.pickEvent(op.Pick)
		if waited := m.waitedFor(); op.Twice && len(waited) > 0 {
			id = waited[op.Pick%len(waited)].ID
			d.stats.Waited++
		}
		_, err := fl.Approve(ctx, id)
		if err == nil {
			d.stats.Approvals++
		}
		return expect("approve "+id, err, m.approveAdmin(id))
	case OpCancel:
		id := d.pickEvent(op.Pick)
		_, err := fl.Cancel(ctx, id)
		return expect("cancel "+id, err, m.cancel(id))
	case OpResolve:
		id := d.pickEvent(op.Pick)
		if started := d.m.started(); op.Pick%2 == 0 && len(started) > 0 {
			id = started[op.Pick/2%len(started)].ID // mostly with no failed VM: 409 unless forced
		}
		r := forewarn.Resolution{Action: forewarn.ResolveAction(strings.TrimSuffix(op.Action, "!")), Force: strings.HasSuffix(op.Action, "!")}
		noFailed := m.events[key(id)] != nil && m.events[key(id)].Status == forewarn.Started && len(m.events[key(id)].Failed) == 0
		_, err := fl.Resolve(ctx, id, r)
		if noFailed && r.Action == forewarn.ResolveComplete {
			if r.Force {
				d.stats.Forced++
			} else {
				d.stats.Refused++
			}
		}
		return expect("resolve "+id, err, m.resolve(id, r))
	case OpGet:
		return d.get(op)
	case OpPost:
		return d.post(op)
	case OpCampaign:
		c, err := fl.StartCampaign(ctx, op.Campaign)
		id := ""
		if err == nil {
			id = c.ID
			d.stats.Campaigns++
		}
		return expect("start campaign", err, m.startCampaign(op.Campaign, id, progressIDs(c)))
	case OpSteer:
		id := d.pickCampaign(op.Pick)
		for range 1 + btoi(op.Twice) {
			if err := d.steer(id, op.Action); err != nil {
				return err
			}
		}
		return nil
	case OpChaos:
		r, err := fl.AddChaos(ctx, op.Chaos)
		id := ""
		if err == nil {
			id = r.ID
		}
		return expect("add chaos", err, m.addChaos(op.Chaos, id))
	case OpUnchaos:
		id := "00000000-0000-4000-8000-000000000000"
		if rules := m.rulesInForce(); len(rules) > 0 {
			id = rules[op.Pick%len(rules)].ID
		}
		return expect("delete chaos "+id, fl.DeleteChaos(ctx, id), m.deleteChaos(id))
	case OpApply:
		return d.apply(op)
	case OpAdvance:
		return d.advance(op)
	case OpWipe:
		return d.wipe(op)
	case OpRestart:
		d.stats.Restarts++
		if err := d.w.start(op.Conf); err != nil {
			return err
		}
		clear(d.accepted) // the old server's runs ended with it
		m.restart(op.Conf)
		return nil
	}
	return fmt.Errorf("unknown operation %d", op.Kind)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// steer pauses, resumes or cancels a campaign, and compares the campaign
// the call returns with the model's: steering it to the state it is in
// answers it as it is; an ended one is a conflict (but cancelling a
// cancelled one).
func (d *driver) steer(id, action string) error {
	c, err := d.w.fleet.SteerCampaign(d.ctx, id, forewarn.CampaignAction(action))
	if err := expect(action+" campaign "+id, err, d.m.steer(id, forewarn.CampaignAction(action), progressIDs(c))); err != nil {
		return err
	}
	if err != nil {
		return nil
	}
	if w := d.m.campaign(id); w != nil {
		return sameCampaign("the campaign "+action+" returned:", c, w)
	}
	return nil
}

// wipe deletes every VM of a scope, then the scope (unless a standalone
// scope went with its VM), through the admin API: one that campaigns walk
// if any, two if a scope has two.
func (d *driver) wipe(op Op) error {
	s := d.m.wipeTarget(op.Pick)
	if s == nil {
		return nil
	}
	name := s.Name
	if d.m.walkers(s) >= 2 {
		d.stats.Wiped2++
	}
	for _, vm := range d.m.vmsOf(name) {
		if err := expect("delete vm "+vm.Name, d.w.fleet.DeleteVM(d.ctx, vm.Name), d.m.deleteVM(vm.Name)); err != nil {
			return err
		}
	}
	if d.m.scopes[key(name)] == nil && s.Kind == forewarn.Standalone {
		return nil
	}
	return expect("delete scope "+name, d.w.fleet.DeleteScope(d.ctx, name), d.m.deleteScope(name))
}

// created checks a call that creates an event.
func (d *driver) created(what string, e *forewarn.Event, err error, model func(id string) error) error {
	id := ""
	if err == nil {
		id = e.ID
		d.stats.Events++
	}
	if err := expect(what, err, model(id)); err != nil || e == nil {
		return err
	}
	if me := d.m.events[id]; me != nil {
		return sameEvent("the event "+what+" returned", e, &me.Event, false)
	}
	return nil
}

// progressIDs returns what tells the model the id of each event a
// campaign created: its progress, as the fabric answered it.
func progressIDs(cs ...*forewarn.Campaign) func(c, scope string) string {
	return func(c, scope string) string {
		for _, x := range cs {
			if x == nil || x.ID != c {
				continue
			}
			for _, p := range x.Scopes {
				if forewarn.SameName(p.Scope, scope) {
					return p.Event
				}
			}
		}
		return ""
	}
}

// pickEvent names an event in flight, or one no event has.
func (d *driver) pickEvent(n int) string {
	events := d.m.eventsOf("")
	if len(events) == 0 {
		return fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
	}
	id := events[n%len(events)].ID
	if n%7 == 0 {
		id = strings.ToUpper(id) // ids match case-insensitively
	}
	return id
}

// pickCampaign names a campaign, mostly one that has not ended.
func (d *driver) pickCampaign(n int) string {
	var live []*forewarn.Campaign
	for _, c := range d.m.campaigns {
		if !c.Ended() {
			live = append(live, c)
		}
	}
	switch {
	case len(live) > 0 && n%5 != 0:
		return live[n%len(live)].ID
	case len(d.m.campaigns) > 0:
		return d.m.campaigns[n%len(d.m.campaigns)].ID
	}
	return fmt.Sprintf("00000000-0000-4000-8000-%012d", n)
}
