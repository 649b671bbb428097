package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/fleetfile"
)

// Program is what a run does: the first server's settings and the
// operations, all from the seed.
type Program struct {
	Seed uint64
	Conf serverConf
	Ops  []Op
}

func (p Program) String() string {
	return fmt.Sprintf("seed %d, first server %s, %d operations:\n%s", p.Seed, p.Conf, len(p.Ops), listing(p.Ops))
}

// Generate makes the program of a seed, n operations long, generating
// each operation from the state of the model as the run reaches it.
func Generate(seed uint64, n int, opts Options) Program {
	g := newGen(seed, opts)
	p := Program{Seed: seed, Conf: g.conf()}
	m := newModel(p.Conf, opts)
	m.ensureDefaultVM()
	sh := &shadow{m: m}
	for range n {
		op := g.next(m)
		p.Ops = append(p.Ops, op)
		sh.apply(op)
	}
	return p
}

// Failure is a violation a run found.
type Failure struct {
	Step int // the operation after which it was found; -1 at the start
	Op   Op
	Msg  string
}

func (f *Failure) Error() string {
	if f.Step < 0 {
		return "at the start: " + f.Msg
	}
	return fmt.Sprintf("after operation %d (%s): %s", f.Step, f.Op, f.Msg)
}

// Run runs a program against the system and the model, checking every
// invariant after each operation. It returns the first violation, or nil.
func Run(ctx context.Context, p Program, opts Options) (*Failure, Stats) {
	d := &driver{ctx: ctx, opts: opts, m: newModel(p.Conf, opts), obs: newObservations(), accepted: map[string]bool{}, owners: map[string]string{}}
	opens, err := openerOf(opts)
	if err != nil {
		return &Failure{Step: -1, Msg: err.Error()}, d.stats
	}
	w, err := newWorld(ctx, p.Seed, opens, p.Conf)
	if err != nil {
		return &Failure{Step: -1, Msg: err.Error()}, d.stats
	}
	defer w.close()
	d.w = w
	d.m.ensureDefaultVM()
	if err := d.settle(); err != nil {
		return &Failure{Step: -1, Msg: err.Error()}, d.stats
	}
	for i, op := range p.Ops {
		d.step = i
		if err := d.do(op); err != nil {
			return &Failure{Step: i, Op: op, Msg: err.Error()}, d.stats
		}
		if err := d.settle(); err != nil {
			return &Failure{Step: i, Op: op, Msg: err.Error()}, d.stats
		}
		d.stats.Ops++
	}
	if err := d.checkAll(true); err != nil {
		return &Failure{Step: len(p.Ops) - 1, Op: p.Ops[len(p.Ops)-1], Msg: "at the end: " + err.Error()}, d.stats
	}
	return nil, d.stats
}

// Stats count what a run did.
type Stats struct {
	Ops, Events, Campaigns, Restarts, Approvals int
	// Held counts requests a chaos delay held; Wiped2 scopes deleted while
	// two campaigns walked them; Waited admin approvals of an event another
	// campaign waited for; Forced resolves with Force that completed an
	// event with no failed VM; Refused resolves --complete refused without it.
	Held, Wiped2, Waited, Forced, Refused int
}

func (s *Stats) add(o Stats) {
	s.Ops += o.Ops
	s.Events += o.Events
	s.Campaigns += o.Campaigns
	s.Restarts += o.Restarts
	s.Approvals += o.Approvals
	s.Held += o.Held
	s.Wiped2 += o.Wiped2
	s.Waited += o.Waited
	s.Forced += o.Forced
	s.Refused += o.Refused
}

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

// ---- the metadata endpoint

// request sends a request to the VMs' endpoint from addr.
func (d *driver) request(method, addr, version, body string) *httptest.ResponseRecorder {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r := httptest.NewRequest(method, "/metadata/scheduledevents?api-version="+version, rd)
	r.RemoteAddr = remote(addr)
	r.Header.Set("Metadata", "true")
	w := httptest.NewRecorder()
	d.w.meta.ServeHTTP(w, r)
	return w
}

func remote(addr string) string {
	if strings.Contains(addr, ":") {
		return "[" + addr + "]:40000"
	}
	return addr + ":40000"
}

// caller returns the address a VM calls from, or "" if it has none.
func (d *driver) caller(op Op) string {
	if op.Addr != "" {
		return op.Addr
	}
	vm := d.m.vms[key(op.Name)]
	if vm == nil || len(vm.Addrs) == 0 {
		return ""
	}
	return vm.Addrs[op.Pick%len(vm.Addrs)]
}

// chaosAnswer checks an answer against the chaos the model has in force
// for the VM; it reports whether a fault answered.
func (d *driver) chaosAnswer(vm *mVM, status int, held bool) (bool, error) {
	if held { // a rule that delays hit it: it answers as usual then
		if slices.Contains(forewarn.ChaosStatuses, status) {
			return false, fmt.Errorf("vm %s answered %d after a chaos delay held it", vm.Name, status)
		}
		return false, nil
	}
	r := d.m.chaosFor(vm)
	if r != nil && r.Delay > 0 { // it holds answers (send), and answers as usual
		r = nil
	}
	switch {
	case r != nil && status == r.Status:
		return true, nil
	case r != nil && r.Fraction >= 1:
		return false, fmt.Errorf("vm %s answered %d, the chaos rule %s (every request, status %d) is in force", vm.Name, status, r.ID, r.Status)
	case r == nil && slices.Contains(forewarn.ChaosStatuses, status):
		return false, fmt.Errorf("vm %s answered %d, and no chaos rule is in force for it", vm.Name, status)
	}
	return false, nil
}

// send sends a VM's request. If a chaos rule that delays answers is in
// force for the VM, and holds the request (the endpoint waits on a timer),
// the clock moves on by the delay (with Twice, the VM is deleted first)
// and the request is answered then; held says so, and the caller releases
// the actuator's runs that came due once it has checked the answer.
func (d *driver) send(method, addr, version, body string, op Op) (resp *httptest.ResponseRecorder, held bool, err error) {
	vm := d.m.owner(addr)
	var rule *forewarn.ChaosRule
	if vm != nil {
		rule = d.m.chaosFor(vm)
	}
	if rule == nil || rule.Delay <= 0 {
		return d.request(method, addr, version, body), false, nil
	}
	d.w.metaClock.drain()
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp = d.request(method, addr, version, body)
	}()
	select {
	case <-done:
		if rule.Fraction >= 1 {
			return nil, false, fmt.Errorf("%s from vm %s was answered at once (%d), the chaos rule %s (every request, delay %s) is in force",
				method, vm.Name, resp.Code, rule.ID, time.Duration(rule.Delay))
		}
		return resp, false, nil
	case <-d.w.metaClock.timers:
		d.stats.Held++
	case <-time.After(settleTimeout):
		return nil, false, fmt.Errorf("%s from vm %s was neither answered nor held", method, vm.Name)
	}
	if op.Twice {
		if err := expect("delete vm "+vm.Name+" while its request is held", d.w.fleet.DeleteVM(d.ctx, vm.Name), d.m.deleteVM(vm.Name)); err != nil {
			<-d.unhold(time.Duration(rule.Delay), done)
			return nil, true, err
		}
	}
	select {
	case <-d.unhold(time.Duration(rule.Delay), done):
	case <-time.After(settleTimeout):
		return nil, true, fmt.Errorf("%s from vm %s, held by chaos rule %s, was not answered after its delay", method, vm.Name, rule.ID)
	}
	return resp, true, nil
}

// unhold moves the clock on by a chaos delay, which ends the wait of a
// held request.
func (d *driver) unhold(delay time.Duration, done chan struct{}) chan struct{} {
	d.m.now = d.m.now.Add(delay)
	d.w.clock.Advance(delay)
	return done
}

// afterHeld releases the actuator's runs that came due while a request
// was held.
func (d *driver) afterHeld(held bool, err error) error {
	if err != nil || !held {
		return err
	}
	return d.releaseRuns()
}

func (d *driver) get(op Op) error {
	addr := d.caller(op)
	if addr == "" {
		return nil // a VM with no address cannot call
	}
	resp, held, err := d.send(http.MethodGet, addr, op.Version, "", op)
	if err != nil {
		return err
	}
	return d.afterHeld(held, d.checkGet(addr, op, resp, held))
}

func (d *driver) checkGet(addr string, op Op, resp *httptest.ResponseRecorder, held bool) error {
	vm := d.m.owner(addr)
	if vm == nil {
		if resp.Code != http.StatusForbidden {
			return fmt.Errorf("GET from %s, which no VM has: %d, want 403", addr, resp.Code)
		}
		return nil
	}
	if hit, err := d.chaosAnswer(vm, resp.Code, held); hit || err != nil {
		return err
	}
	if resp.Code != http.StatusOK {
		return fmt.Errorf("GET from vm %s (%s): %d %s", vm.Name, addr, resp.Code, resp.Body)
	}
	scope := d.m.scopes[key(vm.Scope)]
	d.m.enable(scope)
	return d.checkDocument(vm, op.Version, resp.Body.Bytes(), "the VM's own GET")
}

func (d *driver) post(op Op) error {
	addr := d.caller(op)
	if addr == "" {
		return nil
	}
	ids := d.approvalTargets(d.m.owner(addr), op)
	var items []string
	for _, id := range ids {
		items = append(items, fmt.Sprintf(`{"EventId":%q}`, id))
	}
	body := fmt.Sprintf(`{"StartRequests":[%s],"DocumentIncarnation":"%d"}`, strings.Join(items, ","), op.Pick)
	resp, held, err := d.send(http.MethodPost, addr, "2020-07-01", body, op)
	if err != nil {
		return err
	}
	return d.afterHeld(held, d.checkPost(addr, ids, resp, held))
}

func (d *driver) checkPost(addr string, ids []string, resp *httptest.ResponseRecorder, held bool) error {
	vm := d.m.owner(addr)
	if vm == nil {
		if resp.Code != http.StatusForbidden {
			return fmt.Errorf("POST from %s, which no VM has: %d, want 403", addr, resp.Code)
		}
		return nil
	}
	if hit, err := d.chaosAnswer(vm, resp.Code, held); hit || err != nil {
		return err
	}
	want := http.StatusOK
	if err := d.m.approveVM(vm, ids); err != nil {
		want = http.StatusBadRequest
	} else {
		d.stats.Approvals++
	}
	if resp.Code != want {
		return fmt.Errorf("POST approval of %v from vm %s (%s): %d %s, the model expects %d", ids, vm.Name, addr, resp.Code, resp.Body, want)
	}
	return nil
}

// approvalTargets chooses the event ids a VM's approval names.
func (d *driver) approvalTargets(vm *mVM, op Op) []string {
	unknown := fmt.Sprintf("0badc0de-0000-4000-8000-%012d", op.Pick)
	if vm == nil {
		return []string{unknown}
	}
	var own, other []string
	for _, e := range d.m.eventsOf("") {
		if forewarn.SameName(e.Scope, vm.Scope) {
			own = append(own, e.ID)
		} else {
			other = append(other, e.ID)
		}
	}
	choose := func(ids []string) string {
		if len(ids) == 0 {
			return unknown
		}
		id := ids[op.Pick%len(ids)]
		if op.Pick%5 == 0 {
			id = strings.ToUpper(id)
		}
		return id
	}
	switch op.Target {
	case OwnEvent:
		return []string{choose(own)}
	case OtherScope:
		return []string{choose(other)}
	case EndedEvent:
		var ended []string
		for _, h := range d.m.history {
			ended = append(ended, h.ID)
		}
		return []string{choose(ended)}
	case TwoEvents:
		return []string{choose(own), choose(other)}
	}
	return []string{unknown}
}

// ---- fleet files

func (d *driver) apply(op Op) error {
	f, err := fleetfile.Parse("sim.yaml", []byte(op.Fleet))
	if err != nil {
		return nil // the file itself is refused: nothing of the fleet's to check
	}
	mf := &modelFleet{Fleet: d.w.fleet, d: d}
	_, err = fleetfile.Apply(d.ctx, mf, f, op.Prune)
	if mf.fault != nil {
		return fmt.Errorf("apply: %w", mf.fault)
	}
	if err != nil {
		if !errors.Is(err, forewarn.ErrConflict) {
			return fmt.Errorf("apply: %w", err)
		}
		return nil
	}
	return d.checkApplied(f, op.Prune)
}

// checkApplied checks that the fleet is as the file says after an apply
// that succeeded.
func (d *driver) checkApplied(f *fleetfile.File, prune bool) error {
	want := map[string]bool{"default": true}
	wantVMs := map[string]bool{}
	for _, s := range f.Scopes {
		ms := d.m.scopes[key(s.Spec.Name)]
		if ms == nil || ms.Kind != s.Spec.Kind || ms.UDs != s.Spec.UpdateDomains {
			return fmt.Errorf("apply: scope %s is not as the file declares it", s.Spec.Name)
		}
		want[key(s.Spec.Name)] = true
		for _, v := range s.VMs {
			vm := d.m.vms[key(v.Spec.Name)]
			if vm == nil || !forewarn.SameName(vm.Scope, s.Spec.Name) {
				return fmt.Errorf("apply: vm %s is not in scope %s as the file declares it", v.Spec.Name, s.Spec.Name)
			}
			wantVMs[key(v.Spec.Name)] = true
		}
	}
	if !prune {
		return nil
	}
	for k, vm := range d.m.vms {
		if !wantVMs[k] && !forewarn.SameName(vm.Scope, "default") {
			return fmt.Errorf("apply with prune left vm %s, which the file does not name", vm.Name)
		}
	}
	for k := range d.m.scopes {
		if !want[k] && len(d.m.vmsOf(k)) == 0 {
			return fmt.Errorf("apply with prune left scope %s, which the file does not name", k)
		}
	}
	return nil
}

// modelFleet is the Fleet a fleet file is applied through: every change
// goes to the admin API and to the model, and their answers must agree.
type modelFleet struct {
	forewarn.Fleet
	d     *driver
	fault error
}

func (f *modelFleet) check(err error) error {
	if err != nil && f.fault == nil {
		f.fault = err
	}
	return nil
}

func (f *modelFleet) CreateScope(ctx context.Context, spec forewarn.ScopeSpec) (*forewarn.Scope, error) {
	s, err := f.Fleet.CreateScope(ctx, spec)
	f.check(expect("create scope "+spec.Name, err, f.d.m.createScope(spec)))
	return s, err
}

func (f *modelFleet) DeleteScope(ctx context.Context, name string) error {
	err := f.Fleet.DeleteScope(ctx, name)
	f.check(expect("delete scope "+name, err, f.d.m.deleteScope(name)))
	return err
}

func (f *modelFleet) CreateVM(ctx context.Context, spec forewarn.VMSpec) (*forewarn.VM, error) {
	vm, err := f.Fleet.CreateVM(ctx, spec)
	id := ""
	if err == nil {
		id = vm.ID
	}
	f.check(expect("create vm "+spec.Name, err, f.d.m.createVM(spec, id)))
	return vm, err
}

func (f *modelFleet) DeleteVM(ctx context.Context, name string) error {
	err := f.Fleet.DeleteVM(ctx, name)
	f.check(expect("delete vm "+name, err, f.d.m.deleteVM(name)))
	return err
}

func (f *modelFleet) CreateBatch(ctx context.Context, scopes []forewarn.ScopeSpec, vms []forewarn.VMSpec) error {
	err := f.Fleet.CreateBatch(ctx, scopes, vms)
	f.check(expect("create batch", err, f.d.m.createBatch(scopes, vms)))
	return err
}
