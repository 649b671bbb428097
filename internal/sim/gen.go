package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/forewarn/forewarn"
)

// The names and addresses a run uses: few, so that they are deleted,
// created again, and passed from one VM or scope to another.
var (
	scopeNames = []string{"s0", "s1", "s2", "s3"}
	vmNames    = []string{"v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9"}
	addrPool   = []string{"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5", "10.0.0.6", "10.0.0.7",
		"10.0.0.8", "10.0.0.9", "10.0.0.10", "10.0.0.11", "10.0.0.12", "fd00::1", "fd00::2"}
	apiVersions = []string{"2017-08-01", "2017-11-01", "2019-01-01", "2020-07-01", "2020-07-01", "2020-07-01"}
	steps       = []time.Duration{time.Second, 5 * time.Second, 20 * time.Second, time.Minute, 2 * time.Minute,
		5 * time.Minute, 10 * time.Minute, 16 * time.Minute, time.Hour, 6 * time.Hour, 25 * time.Hour}
	stepWeights = []int{10, 10, 10, 12, 8, 10, 8, 8, 4, 2, 1}
)

// gen makes operations from a seed, looking at the model to choose names
// that exist more often than not.
type gen struct {
	r    *rand.Rand
	opts Options
}

func newGen(seed uint64, opts Options) *gen {
	return &gen{r: rand.New(rand.NewPCG(seed, 0x5eed)), opts: opts}
}

// weights of the kinds of operation, by Kind.
var weights = map[Kind]int{
	OpCreateScope: 5, OpDeleteScope: 2, OpCreateVM: 10, OpDeleteVM: 3, OpOperate: 10, OpFail: 2, OpDegrade: 2,
	OpApprove: 4, OpCancel: 3, OpResolve: 3, OpGet: 14, OpPost: 6, OpCampaign: 3, OpSteer: 4, OpChaos: 1,
	OpUnchaos: 1, OpApply: 1, OpAdvance: 22, OpRestart: 2, OpWipe: 1,
}

var kinds = func() []Kind {
	var out []Kind
	for k := OpCreateScope; k <= lastKind; k++ {
		out = append(out, k)
	}
	return out
}()

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func pick[T any](g *gen, xs []T) T { return xs[g.r.IntN(len(xs))] }

// weighted picks an index by weight.
func (g *gen) weighted(ws []int) int {
	total := 0
	for _, w := range ws {
		total += w
	}
	n := g.r.IntN(total)
	for i, w := range ws {
		if n < w {
			return i
		}
		n -= w
	}
	return len(ws) - 1
}

// caseOf sometimes changes the case of a name: names match
// case-insensitively.
func (g *gen) caseOf(name string) string {
	if g.chance(0.1) {
		return strings.ToUpper(name[:1]) + name[1:]
	}
	return name
}

func (g *gen) conf() serverConf {
	return serverConf{
		TimeScale:     pick(g, []float64{1, 1, 60, 3600}),
		AlwaysEnabled: g.chance(0.2),
		Actuator:      g.chance(0.4),
		MaxUserOps:    pick(g, []int{1, 2, 3, 10, 10}),
	}
}

func (g *gen) next(m *model) Op {
	ws := make([]int, len(kinds))
	for i, k := range kinds {
		ws[i] = weights[k]
	}
	if len(m.vms) < 4 {
		ws[OpCreateVM] *= 3
	}
	if len(m.scopes) < 3 {
		ws[OpCreateScope] *= 3
	}
	switch k := kinds[g.weighted(ws)]; k {
	case OpCreateScope:
		return Op{Kind: k, Scope: g.scopeSpec(m)}
	case OpDeleteScope:
		return Op{Kind: k, Name: g.caseOf(g.scopeName(m))}
	case OpCreateVM:
		return Op{Kind: k, VM: g.vmSpec(m)}
	case OpDeleteVM:
		return Op{Kind: k, Name: g.caseOf(g.vmName(m))}
	case OpOperate:
		return Op{Kind: k, Name: g.caseOf(g.vmName(m)),
			Op: pick(g, []forewarn.Operation{forewarn.OpRestart, forewarn.OpRedeploy, forewarn.OpEvict, forewarn.OpTerminate, forewarn.OpTerminate})}
	case OpFail:
		return Op{Kind: k, Name: g.vmName(m)}
	case OpDegrade:
		return Op{Kind: k, Name: g.vmName(m), D: pick(g, []time.Duration{0, time.Minute, 30 * time.Minute, 3 * time.Hour, -time.Minute})}
	case OpApprove:
		return Op{Kind: k, Pick: g.r.IntN(1000), Twice: g.chance(0.5)}
	case OpCancel:
		return Op{Kind: k, Pick: g.r.IntN(1000)}
	case OpResolve:
		return Op{Kind: k, Pick: g.r.IntN(1000), Action: pick(g, []string{"complete", "complete!", "complete!", "retry", "retry", "retry!", "redo"})}
	case OpGet:
		if g.chance(0.08) {
			return Op{Kind: k, Addr: pick(g, addrPool), Version: pick(g, apiVersions)}
		}
		return Op{Kind: k, Name: g.addressedVM(m), Pick: g.r.IntN(4), Version: pick(g, apiVersions), Twice: g.chance(0.2)}
	case OpPost:
		return Op{Kind: k, Name: g.addressedVM(m), Pick: g.r.IntN(1000),
			Target: Target(g.weighted([]int{12, 2, 2, 1, 1})), Twice: g.chance(0.2)}
	case OpCampaign:
		return Op{Kind: k, Campaign: g.campaignSpec(m)}
	case OpSteer:
		return Op{Kind: k, Pick: g.r.IntN(1000), Action: pick(g, []string{"pause", "resume", "resume", "cancel", "halt"}),
			Twice: g.chance(0.3)}
	case OpChaos:
		return Op{Kind: k, Chaos: g.chaosSpec(m)}
	case OpUnchaos:
		return Op{Kind: k, Pick: g.r.IntN(1000)}
	case OpApply:
		return Op{Kind: k, Fleet: g.fleetFile(m), Prune: g.chance(0.4)}
	case OpAdvance:
		return Op{Kind: k, D: steps[g.weighted(stepWeights)] + time.Duration(g.r.IntN(1000))*time.Millisecond}
	case OpWipe:
		return Op{Kind: k, Pick: g.r.IntN(1000)}
	default:
		return Op{Kind: OpRestart, Conf: g.conf()}
	}
}

// scopeName is mostly a scope that exists.
func (g *gen) scopeName(m *model) string {
	if len(m.scopes) > 0 && g.chance(0.85) {
		return m.sortedScopes()[g.r.IntN(len(m.scopes))].Name
	}
	return pick(g, scopeNames)
}

// vmName is mostly a VM that exists.
func (g *gen) vmName(m *model) string {
	if len(m.vms) > 0 && g.chance(0.9) {
		return g.someVM(m).Name
	}
	return pick(g, vmNames)
}

func (g *gen) someVM(m *model) *mVM {
	names := make([]string, 0, len(m.vms))
	for k := range m.vms {
		names = append(names, k)
	}
	slices.Sort(names)
	return m.vms[pick(g, names)]
}

// addressedVM is a VM that has an address, if one does.
func (g *gen) addressedVM(m *model) string {
	var names []string
	for k, vm := range m.vms {
		if len(vm.Addrs) > 0 {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return g.vmName(m)
	}
	slices.Sort(names)
	return m.vms[pick(g, names)].Name
}

func (g *gen) scopeSpec(m *model) forewarn.ScopeSpec {
	name := g.freshOr(m, pick(g, scopeNames))
	spec := forewarn.ScopeSpec{Name: g.caseOf(name),
		Kind: pick(g, []forewarn.ScopeKind{"", forewarn.AvailabilitySet, forewarn.ScaleSet, forewarn.ScaleSet, forewarn.CloudService})}
	if g.chance(0.7) {
		spec.UpdateDomains = 1 + g.r.IntN(4)
	}
	if g.chance(0.3) {
		spec.FaultDomains = 1 + g.r.IntN(3)
	}
	if spec.Kind == forewarn.ScaleSet && g.chance(0.5) {
		spec.TerminateNotice = forewarn.Duration(pick(g, []time.Duration{5 * time.Minute, 10 * time.Minute, 15 * time.Minute}))
	}
	switch {
	case g.chance(0.02):
		spec.UpdateDomains = 21
	case g.chance(0.02):
		spec.Kind = "rack"
	case g.chance(0.02):
		spec.Name = "bad name"
	}
	return spec
}

// freshOr returns name, or under the mask NoRecreate, if name was ever a
// scope's that is gone, a scope name never used in the run.
func (g *gen) freshOr(m *model, name string) string {
	if !g.opts.NoRecreate || !m.usedNames[key(name)] || m.scopes[key(name)] != nil {
		return name
	}
	for _, n := range scopeNames {
		if !m.usedNames[key(n)] {
			return n
		}
	}
	return fmt.Sprintf("s%d", len(m.usedNames)+g.r.IntN(3))
}

func (g *gen) vmSpec(m *model) forewarn.VMSpec {
	spec := forewarn.VMSpec{Name: g.caseOf(pick(g, vmNames))}
	var free []string
	for _, n := range vmNames {
		if m.vms[n] == nil {
			free = append(free, n)
		}
	}
	if len(free) > 0 && g.chance(0.85) {
		spec.Name = g.caseOf(pick(g, free))
	}
	switch p := g.r.Float64(); {
	case p < 0.75 && len(m.scopes) > 0:
		s := m.sortedScopes()[g.r.IntN(len(m.scopes))]
		spec.Scope = g.caseOf(s.Name)
		if g.chance(0.3) {
			ud := g.r.IntN(s.UDs + 1)
			spec.UpdateDomain = &ud
		}
		if g.chance(0.2) {
			fd := g.r.IntN(s.FDs)
			spec.FaultDomain = &fd
		}
	case p < 0.92:
	default:
		spec.Scope = g.freshOr(m, pick(g, scopeNames))
	}
	if spec.Scope == "" && g.opts.NoRecreate && m.usedNames[key(spec.Name)] && m.vms[key(spec.Name)] == nil {
		spec.Scope = g.scopeName(m) // its own scope would be a name used before
	}
	var freeAddrs []string
	for _, a := range addrPool {
		if m.owner(a) == nil {
			freeAddrs = append(freeAddrs, a)
		}
	}
	for range g.weighted([]int{1, 8, 3}) {
		switch {
		case len(freeAddrs) > 0 && g.chance(0.9):
			spec.Addresses = append(spec.Addresses, pick(g, freeAddrs))
		case g.chance(0.1):
			spec.Addresses = append(spec.Addresses, "10.0.0.300")
		default:
			spec.Addresses = append(spec.Addresses, pick(g, addrPool))
		}
	}
	spec.Priority = forewarn.Priority(pick(g, []string{"", "Regular", "Spot", "Spot", "spot"}))
	if g.chance(0.02) {
		spec.Priority = "Gold"
	}
	return spec
}

func (g *gen) campaignSpec(m *model) forewarn.CampaignSpec {
	spec := forewarn.CampaignSpec{
		Type:           pick(g, []forewarn.EventType{forewarn.Freeze, forewarn.Reboot, forewarn.Redeploy}),
		Notice:         forewarn.Duration(pick(g, []time.Duration{0, 0, 20 * time.Minute, 2 * time.Hour})),
		Duration:       forewarn.Duration(pick(g, []time.Duration{0, 0, 10 * time.Second, 2 * time.Minute})),
		ParallelScopes: pick(g, []int{0, 1, 2, 3}),
	}
	if g.chance(0.2) {
		spec.All = true
	} else {
		for range 1 + g.r.IntN(3) {
			n := g.scopeName(m)
			if !slices.ContainsFunc(spec.Scopes, func(s string) bool { return forewarn.SameName(s, n) }) || g.chance(0.05) {
				spec.Scopes = append(spec.Scopes, n)
			}
		}
	}
	if g.chance(0.02) {
		spec.Type = forewarn.Preempt
	}
	return spec
}

func (g *gen) chaosSpec(m *model) forewarn.ChaosSpec {
	spec := forewarn.ChaosSpec{
		Status:   pick(g, forewarn.ChaosStatuses),
		Fraction: pick(g, []float64{0, 1, 0.5}),
		For:      forewarn.Duration(pick(g, []time.Duration{30 * time.Second, 10 * time.Minute, 2 * time.Hour})),
	}
	if g.chance(0.35) { // hold the answers instead
		spec.Status = 0
		spec.Delay = forewarn.Duration(pick(g, []time.Duration{time.Second, 10 * time.Second, 2 * time.Minute, -time.Second}))
	}
	switch g.r.IntN(4) {
	case 0:
		spec.Scope = g.scopeName(m)
	case 1, 2:
		spec.VM = g.vmName(m)
	}
	if g.chance(0.03) {
		spec.Status = 404
	}
	return spec
}

// fleetFile writes a fleet file over a few scopes and VMs, mostly as they
// are (unchanged), some new, some changed (a conflict).
func (g *gen) fleetFile(m *model) string {
	var b strings.Builder
	declared := map[string]bool{}
	addrs := map[string]bool{}
	vmLine := func(indent string, name string, vm *mVM) {
		fmt.Fprintf(&b, "%s- name: %s\n", indent, name)
		var as []string
		if vm != nil {
			as = vm.Addrs
			fmt.Fprintf(&b, "%s  priority: %s\n", indent, vm.Priority)
		} else {
			for _, a := range addrPool {
				if m.owner(a) == nil && !addrs[a] && g.chance(0.3) {
					as = append(as, a)
					break
				}
			}
		}
		for _, a := range as {
			addrs[a] = true
		}
		if len(as) > 0 {
			fmt.Fprintf(&b, "%s  addresses: [%s]\n", indent, strings.Join(as, ", "))
		}
	}
	b.WriteString("scopes:\n")
	for range 1 + g.r.IntN(3) {
		name := g.freshOr(m, g.scopeName(m))
		s := m.scopes[key(name)]
		if declared[key(name)] || (s != nil && s.Kind == forewarn.Standalone) {
			continue
		}
		declared[key(name)] = true
		fmt.Fprintf(&b, "  - name: %s\n", name)
		if s != nil {
			fmt.Fprintf(&b, "    kind: %s\n    updateDomains: %d\n    faultDomains: %d\n", s.Kind, s.UDs, s.FDs)
			if s.Kind == forewarn.ScaleSet {
				fmt.Fprintf(&b, "    terminateNotice: %s\n", s.TN)
			}
			if g.chance(0.1) {
				b.WriteString("    # changed:\n")
			}
		}
		b.WriteString("    vms:\n")
		if s != nil {
			for _, vm := range m.vmsOf(s.Name) {
				if g.chance(0.8) && !declared["vm:"+key(vm.Name)] {
					declared["vm:"+key(vm.Name)] = true
					vmLine("      ", vm.Name, vm)
				}
			}
		}
		if g.chance(0.5) {
			n := pick(g, vmNames)
			if !declared["vm:"+n] && m.vms[n] == nil {
				declared["vm:"+n] = true
				vmLine("      ", n, nil)
			}
		}
	}
	return b.String()
}

// shadow runs the model alone, as the generator's guide to what exists:
// ids are made up, and no actuator runs. It only steers the choice of
// names, so a program is a function of its seed alone.
type shadow struct {
	m *model
	n int
}

func (s *shadow) id() string {
	s.n++
	return fmt.Sprintf("00000000-0000-4000-9000-%012d", s.n)
}

func (s *shadow) ids(string, string) string { return s.id() }

func (s *shadow) apply(op Op) {
	m := s.m
	switch op.Kind {
	case OpCreateScope:
		_ = m.createScope(op.Scope)
	case OpDeleteScope:
		_ = m.deleteScope(op.Name)
	case OpCreateVM:
		_ = m.createVM(op.VM, "")
	case OpDeleteVM:
		_ = m.deleteVM(op.Name)
	case OpOperate:
		_ = m.operate(op.Name, op.Op, s.id())
	case OpFail:
		_ = m.failVM(op.Name, s.id())
	case OpDegrade:
		_ = m.degrade(op.Name, op.D, s.id())
	case OpCampaign:
		_ = m.startCampaign(op.Campaign, s.id(), s.ids)
	case OpGet:
		if vm := m.vms[key(op.Name)]; vm != nil {
			m.enable(m.scopes[key(vm.Scope)])
		}
	case OpAdvance:
		m.now = m.now.Add(op.D)
	case OpRestart:
		m.restart(op.Conf)
	case OpWipe:
		if s := m.wipeTarget(op.Pick); s != nil {
			for _, vm := range m.vmsOf(s.Name) {
				_ = m.deleteVM(vm.Name)
			}
			_ = m.deleteScope(s.Name)
		}
	}
	m.tick(func(string) bool { return false }, s.ids)
}
