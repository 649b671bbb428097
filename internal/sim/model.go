package sim

import (
	"cmp"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/forewarn/forewarn"
)

// The model is a small reference implementation of SPEC.md and the
// fabric's rules, written to be read against them: it predicts what each
// admin call answers (its error kind), what every VM's document holds, and
// what the listings and the history show. It knows nothing of stores,
// transactions or goroutines. Where the fabric decides something the
// model cannot know in advance (the id of an event a campaign creates), it
// is told (idFor), and checks the rest.

// idle is how long a scope stays enabled without a request (SPEC.md 9).
const idle = 24 * time.Hour

// mScope is a scope as the model knows it.
type mScope struct {
	Name      string
	Kind      forewarn.ScopeKind
	UDs, FDs  int
	TN        time.Duration
	CreatedAt time.Time
	// EnabledAt and LastSeen are what the store holds (SPEC.md 9); seen is
	// the last request the server remembers, since it started.
	EnabledAt, LastSeen, seen time.Time
	// asked is the last request of any server, for the check that does
	// not use the model's view of what is stored.
	asked time.Time
}

// mVM is a VM as the model knows it.
type mVM struct {
	Name, Scope, ID string
	UD, FD          int
	Addrs           []string
	Priority        forewarn.Priority
	State           forewarn.VMState
}

// mEvent is an event in flight as the model knows it.
type mEvent struct {
	forewarn.Event
	// createdStarted says it started when it was created: a hardware
	// failure, or a scope that gets no notice.
	createdStarted bool
	// clockFrom is when its maintenance began for the bound of its end:
	// its start, or a restart or a retry after it.
	clockFrom time.Time
}

// model is the state the reference model keeps.
type model struct {
	now       time.Time
	conf      serverConf
	opts      Options
	scopes    map[string]*mScope
	vms       map[string]*mVM
	events    map[string]*mEvent
	history   []*forewarn.Event // oldest first
	ended     int               // history entries not yet checked
	campaigns []*forewarn.Campaign
	chaos     []*forewarn.ChaosRule

	// usedNames are the names of every scope ever created, for the mask
	// Options.NoRecreate.
	usedNames map[string]bool

	// campaignsDue says an event ended, a campaign changed or a scope went
	// since the campaigns last advanced (for the mask LazyCampaigns).
	campaignsDue bool

	initialized bool
	defaultVM   string
	restartedAt time.Time
}

func newModel(conf serverConf, opts Options) *model {
	return &model{now: t0, conf: conf, opts: opts, scopes: map[string]*mScope{}, vms: map[string]*mVM{},
		events: map[string]*mEvent{}, usedNames: map[string]bool{}, campaignsDue: true}
}

// key is the key of a name in the model's maps: its forewarn.Key.
func key(name string) string { return string(forewarn.KeyOf(name)) }

// fail is a user error of the kind the model expects.
func fail(kind error) error { return kind }

// ---- scopes

var scopeKinds = []forewarn.ScopeKind{forewarn.AvailabilitySet, forewarn.ScaleSet, forewarn.CloudService}

func newScope(spec forewarn.ScopeSpec) (*mScope, error) {
	s := &mScope{Name: spec.Name, Kind: spec.Kind, UDs: spec.UpdateDomains, FDs: spec.FaultDomains,
		TN: time.Duration(spec.TerminateNotice)}
	if s.Kind == "" {
		s.Kind = forewarn.AvailabilitySet
	}
	if s.UDs == 0 {
		s.UDs = forewarn.DefaultUpdateDomains
	}
	if s.FDs == 0 {
		s.FDs = forewarn.DefaultFaultDomains
	}
	if s.TN == 0 {
		s.TN = forewarn.DefaultTerminateNotice
	}
	switch {
	case !forewarn.ValidName(s.Name), !slices.Contains(scopeKinds, s.Kind),
		s.UDs < 1 || s.UDs > forewarn.MaxUpdateDomains, s.FDs < 1 || s.FDs > forewarn.MaxFaultDomains,
		s.TN < forewarn.MinTerminateNotice || s.TN > forewarn.MaxTerminateNotice:
		return nil, fail(forewarn.ErrInvalid)
	}
	return s, nil
}

func (m *model) createScope(spec forewarn.ScopeSpec) error {
	s, err := newScope(spec)
	if err != nil {
		return err
	}
	if m.scopes[key(s.Name)] != nil {
		return fail(forewarn.ErrConflict)
	}
	s.CreatedAt = m.now
	m.addScope(s)
	return nil
}

func (m *model) deleteScope(name string) error {
	s := m.scopes[key(name)]
	if s == nil {
		return fail(forewarn.ErrNotFound)
	}
	if len(m.vmsOf(s.Name)) > 0 {
		return fail(forewarn.ErrConflict)
	}
	m.dropScope(s)
	return nil
}

func (m *model) addScope(s *mScope) {
	m.scopes[key(s.Name)] = s
	m.usedNames[key(s.Name)] = true
}

// dropScope forgets a scope, and the chaos rules that name it.
func (m *model) dropScope(s *mScope) {
	delete(m.scopes, key(s.Name))
	m.campaignsDue = true
	// The campaigns walking it skip the rest of it.
	for _, c := range m.campaigns {
		for i := range c.Scopes {
			if p := &c.Scopes[i]; !c.Ended() && forewarn.SameName(p.Scope, s.Name) && !p.Finished() {
				m.settle(p) // an update domain whose event completed counts as maintained
				skipRest(p, "the scope was deleted")
			}
		}
	}
	m.dropChaos(func(r *forewarn.ChaosRule) bool { return forewarn.SameName(r.Scope, s.Name) })
}

// enabled reports whether a scope gets notice now (SPEC.md 9), as the
// server knows it: what the store holds and the requests it saw since it
// started.
func (m *model) enabled(s *mScope) bool {
	if m.conf.AlwaysEnabled {
		return true
	}
	if s.EnabledAt.IsZero() {
		return false
	}
	return m.now.Sub(maxTime(s.LastSeen, s.seen)) < idle
}

// enable notes a request of a VM of the scope for its events. The server
// stores it when the scope has not enabled Scheduled Events, or its
// stored last request is an idle time old; else it keeps it in memory.
func (m *model) enable(s *mScope) {
	s.seen, s.asked = m.now, m.now
	if !s.EnabledAt.IsZero() && m.now.Sub(s.LastSeen) < idle {
		return
	}
	s.EnabledAt, s.LastSeen = m.now, m.now
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// ---- VMs

func (m *model) vmsOf(scope string) []*mVM {
	var out []*mVM
	for _, vm := range m.vms {
		if forewarn.SameName(vm.Scope, scope) {
			out = append(out, vm)
		}
	}
	slices.SortFunc(out, func(a, b *mVM) int { return cmp.Compare(key(a.Name), key(b.Name)) })
	return out
}

// owner returns the VM that has the address, or nil.
func (m *model) owner(addr string) *mVM {
	for _, vm := range m.vms {
		if slices.Contains(vm.Addrs, addr) {
			return vm
		}
	}
	return nil
}

func parseAddrs(in []string) ([]string, error) {
	out := make([]string, 0, len(in))
	for _, s := range in {
		a, err := netip.ParseAddr(strings.TrimSpace(s))
		if err != nil || a.IsUnspecified() || a.IsMulticast() {
			return nil, fail(forewarn.ErrInvalid)
		}
		out = append(out, a.Unmap().String())
	}
	return out, nil
}

func (m *model) createVM(spec forewarn.VMSpec, id string) error {
	if !forewarn.ValidName(spec.Name) {
		return fail(forewarn.ErrInvalid)
	}
	prio, ok := forewarn.Canonical(string(spec.Priority), forewarn.Priorities)
	if spec.Priority == "" {
		prio, ok = forewarn.Regular, true
	}
	if !ok {
		return fail(forewarn.ErrInvalid)
	}
	addrs, err := parseAddrs(spec.Addresses)
	if err != nil {
		return err
	}
	if m.vms[key(spec.Name)] != nil {
		return fail(forewarn.ErrConflict)
	}
	var scope *mScope
	if spec.Scope != "" {
		scope = m.scopes[key(spec.Scope)]
		if scope == nil {
			return fail(forewarn.ErrNotFound)
		}
		if scope.Kind == forewarn.Standalone {
			return fail(forewarn.ErrInvalid)
		}
	} else {
		if m.scopes[key(spec.Name)] != nil {
			return fail(forewarn.ErrConflict)
		}
		scope = &mScope{Name: spec.Name, Kind: forewarn.Standalone, UDs: 1, FDs: 1,
			TN: forewarn.DefaultTerminateNotice, CreatedAt: m.now}
	}
	seen := map[string]bool{}
	for _, a := range addrs {
		if m.owner(a) != nil {
			return fail(forewarn.ErrConflict)
		}
		if seen[a] {
			return fail(forewarn.ErrInvalid)
		}
		seen[a] = true
	}
	peers := m.vmsOf(scope.Name)
	ud, err := domain(spec.UpdateDomain, scope.UDs, peers, func(v *mVM) int { return v.UD })
	if err != nil {
		return err
	}
	fd, err := domain(spec.FaultDomain, scope.FDs, peers, func(v *mVM) int { return v.FD })
	if err != nil {
		return err
	}
	m.addScope(scope)
	m.vms[key(spec.Name)] = &mVM{Name: spec.Name, Scope: scope.Name, ID: id, UD: ud, FD: fd, Addrs: addrs,
		Priority: prio, State: forewarn.Running}
	return nil
}

// domain is the asked domain, or the least used one of the scope, lowest
// first (round-robin).
func domain(asked *int, count int, peers []*mVM, of func(*mVM) int) (int, error) {
	if asked != nil {
		if *asked < 0 || *asked >= count {
			return 0, fail(forewarn.ErrInvalid)
		}
		return *asked, nil
	}
	used := make([]int, count)
	for _, p := range peers {
		if d := of(p); d >= 0 && d < count {
			used[d]++
		}
	}
	best := 0
	for d := range used {
		if used[d] < used[best] {
			best = d
		}
	}
	return best, nil
}

func (m *model) deleteVM(name string) error {
	if m.vms[key(name)] == nil {
		return fail(forewarn.ErrNotFound)
	}
	m.removeVM(name)
	return nil
}

// removeVM deletes a VM: it leaves the events it is in (an event left with
// no VM ends), and its standalone scope goes with it.
func (m *model) removeVM(name string) {
	vm := m.vms[key(name)]
	if vm == nil {
		return
	}
	for _, e := range m.eventsOf(vm.Scope) {
		m.dropResource(e, vm.Name)
	}
	delete(m.vms, key(name))
	m.dropChaos(func(r *forewarn.ChaosRule) bool { return forewarn.SameName(r.VM, vm.Name) })
	s := m.scopes[key(vm.Scope)]
	if s != nil && s.Kind == forewarn.Standalone && len(m.vmsOf(s.Name)) == 0 {
		m.dropScope(s)
	}
}

func (m *model) dropResource(e *mEvent, vm string) {
	if !e.Hits(vm) {
		return
	}
	e.Deleted = append(e.Deleted, vm)
	if len(e.Resources) > 1 {
		without := func(names []string) []string {
			return slices.DeleteFunc(slices.Clone(names), func(r string) bool { return forewarn.SameName(r, vm) })
		}
		e.Resources, e.Actuated, e.Failed = without(e.Resources), without(e.Actuated), without(e.Failed)
		m.finish(e)
		return
	}
	// Its last VM is gone: the history keeps the VM it was for.
	if e.Status == forewarn.Started {
		m.end(e, forewarn.Completed)
		return
	}
	m.end(e, forewarn.Cancelled)
	m.skipDomain(e, "its VMs were deleted before its event started")
}

// ensureDefaultVM is what a server does at each start (SPEC.md 8): the
// first start over an empty inventory creates the host's VM; every start
// gives it the addresses no other VM has.
func (m *model) ensureDefaultVM() {
	if !m.initialized {
		m.initialized = true
		if len(m.vms) == 0 {
			if m.scopes["default"] == nil {
				s, _ := newScope(forewarn.ScopeSpec{Name: "default"})
				s.CreatedAt = m.now
				m.addScope(s)
			}
			s := m.scopes["default"]
			ud, _ := domain(nil, s.UDs, m.vmsOf(s.Name), func(v *mVM) int { return v.UD })
			fd, _ := domain(nil, s.FDs, m.vmsOf(s.Name), func(v *mVM) int { return v.FD })
			m.vms[key(defaultHost)] = &mVM{Name: defaultHost, Scope: s.Name, UD: ud, FD: fd,
				Priority: forewarn.Regular, State: forewarn.Running}
			m.defaultVM = defaultHost
		}
	}
	vm := m.vms[key(m.defaultVM)]
	if m.defaultVM == "" || vm == nil {
		return
	}
	vm.Addrs = nil
	for _, a := range defaultAddrs {
		if o := m.owner(a); o == nil || o == vm {
			vm.Addrs = append(vm.Addrs, a)
		}
	}
	if vm.Addrs == nil {
		vm.Addrs = []string{}
	}
}

// ---- restarts

// restart is a new server with conf over the same store: what the old one
// kept in memory is gone; events started under the other actuator are
// handed over to the new one.
func (m *model) restart(conf serverConf) {
	m.conf = conf
	m.restartedAt = m.now
	m.campaignsDue = true
	for _, s := range m.scopes {
		s.seen = time.Time{}
	}
	for _, e := range m.events {
		if e.Status != forewarn.Started {
			continue
		}
		e.clockFrom = m.now
	}
	m.ensureDefaultVM()
}

// ---- chaos

func (m *model) rulesInForce() []*forewarn.ChaosRule {
	var out []*forewarn.ChaosRule
	for _, r := range m.chaos {
		if m.now.Before(r.Until) {
			out = append(out, r)
		}
	}
	return out
}

func (m *model) addChaos(spec forewarn.ChaosSpec, id string) error {
	if spec.Fraction == 0 {
		spec.Fraction = 1
	}
	switch {
	case spec.Scope != "" && spec.VM != "", spec.Status != 0 && spec.Delay != 0,
		spec.Status == 0 && spec.Delay <= 0,
		spec.Status != 0 && !slices.Contains(forewarn.ChaosStatuses, spec.Status),
		spec.For > forewarn.Duration(7*24*time.Hour), !(spec.Fraction > 0 && spec.Fraction <= 1), spec.For <= 0:
		return fail(forewarn.ErrInvalid)
	}
	if spec.Scope != "" && m.scopes[key(spec.Scope)] == nil {
		return fail(forewarn.ErrNotFound)
	}
	if spec.VM != "" && m.vms[key(spec.VM)] == nil {
		return fail(forewarn.ErrNotFound)
	}
	m.chaos = append(m.rulesInForce(), &forewarn.ChaosRule{ID: id, ChaosSpec: spec, CreatedAt: m.now,
		Until: m.now.Add(time.Duration(spec.For))})
	return nil
}

func (m *model) deleteChaos(id string) error {
	rules := m.rulesInForce()
	i := slices.IndexFunc(rules, func(r *forewarn.ChaosRule) bool { return strings.EqualFold(r.ID, id) })
	if i < 0 {
		return fail(forewarn.ErrNotFound)
	}
	m.chaos = slices.Delete(rules, i, i+1)
	return nil
}

// dropChaos forgets the rules that name a scope or VM just deleted, unless
// the model follows the fabric, whose rules name a scope or VM by name
// whatever becomes of it (Options.ChaosByName).
func (m *model) dropChaos(named func(*forewarn.ChaosRule) bool) {
	if m.opts.ChaosByName {
		return
	}
	m.chaos = slices.DeleteFunc(m.chaos, named)
}

// chaosFor returns the rule that may hit a request of the VM: the first in
// force that names it, its scope, or every caller.
func (m *model) chaosFor(vm *mVM) *forewarn.ChaosRule {
	for _, r := range m.rulesInForce() {
		if r.Matches(vm.Scope, vm.Name, m.now) {
			return r
		}
	}
	return nil
}

func (m *model) String() string {
	return fmt.Sprintf("model at %s: %d scopes, %d VMs, %d events", m.now.Format(time.RFC3339), len(m.scopes), len(m.vms), len(m.events))
}

// createBatch creates scopes, then VMs, all or none (Fleet.CreateBatch):
// the specs are checked first, then each is created in order.
func (m *model) createBatch(scopes []forewarn.ScopeSpec, vms []forewarn.VMSpec) error {
	for _, spec := range scopes {
		if _, err := newScope(spec); err != nil {
			return err
		}
	}
	for _, spec := range vms {
		if _, ok := forewarn.Canonical(string(spec.Priority), forewarn.Priorities); !forewarn.ValidName(spec.Name) ||
			(spec.Priority != "" && !ok) {
			return fail(forewarn.ErrInvalid)
		}
		if _, err := parseAddrs(spec.Addresses); err != nil {
			return err
		}
	}
	c := m.clone()
	for _, spec := range scopes {
		if err := c.createScope(spec); err != nil {
			return err
		}
	}
	for _, spec := range vms {
		if err := c.createVM(spec, ""); err != nil {
			return err
		}
	}
	*m = *c
	return nil
}

// clone returns a copy of the model that shares nothing it may change.
func (m *model) clone() *model {
	c := *m
	c.scopes = map[string]*mScope{}
	for k, s := range m.scopes {
		cs := *s
		c.scopes[k] = &cs
	}
	c.vms = map[string]*mVM{}
	for k, vm := range m.vms {
		cv := *vm
		cv.Addrs = slices.Clone(vm.Addrs)
		c.vms[k] = &cv
	}
	c.events = map[string]*mEvent{}
	for k, e := range m.events {
		ce := *e
		ce.Resources, ce.Actuated, ce.Failed = slices.Clone(e.Resources), slices.Clone(e.Actuated), slices.Clone(e.Failed)
		c.events[k] = &ce
	}
	c.history = slices.Clone(m.history)
	c.campaigns = nil
	for _, x := range m.campaigns {
		cx := *x
		cx.Scopes = slices.Clone(x.Scopes)
		c.campaigns = append(c.campaigns, &cx)
	}
	c.chaos = slices.Clone(m.chaos)
	c.usedNames = maps.Clone(m.usedNames)
	return &c
}
