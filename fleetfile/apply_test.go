package fleetfile

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// mustApply applies a fleet file that must apply cleanly.
func mustApply(tb testing.TB, fleet forewarn.Fleet, f *File, prune bool) []Change {
	tb.Helper()
	changes, err := Apply(context.Background(), fleet, f, prune)
	if err != nil {
		tb.Fatalf("apply (prune %v): %v", prune, err)
	}
	return changes
}

// summary writes changes as "create scope web", one a string.
func summary(changes []Change) []string {
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = c.Action + " " + c.Kind + " " + c.Name
	}
	return out
}

// wantSummary compares changes with the summary wanted.
func wantSummary(tb testing.TB, changes []Change, want ...string) {
	tb.Helper()
	if got := summary(changes); !slices.Equal(got, want) {
		tb.Errorf("changes:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// wantCalls compares the calls that changed the fleet with those wanted.
func wantCalls(tb testing.TB, fleet *testFleet, want ...string) {
	tb.Helper()
	if got := fleet.calls(); !slices.Equal(got, want) {
		tb.Errorf("calls:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func loadExample(tb testing.TB) *File {
	tb.Helper()
	f, err := Load(filepath.Join("..", "examples", "fleet.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

func TestApplyExampleTwice(t *testing.T) {
	fleet := newHostFleet(t)
	f := loadExample(t)
	first := mustApply(t, fleet, f, false)
	created := map[string]int{}
	for _, c := range first {
		if c.Action != ActionCreate {
			t.Errorf("first apply: %s, want every change a create", c)
		}
		created[c.Kind]++
	}
	if created[KindScope] != len(f.Scopes) {
		t.Errorf("created %d scopes, want %d", created[KindScope], len(f.Scopes))
	}
	checkCreatedInOrder(t, f, fleet.calls())
	checkFleetIsFile(t, fleet, f)

	for _, prune := range []bool{false, true} {
		fleet.reset()
		again := mustApply(t, fleet, f, prune)
		if len(again) != len(first) {
			t.Errorf("apply again (prune %v): %d changes, want %d", prune, len(again), len(first))
		}
		for _, c := range again {
			if c.Action != ActionUnchanged || c.Detail != "" {
				t.Errorf("apply again (prune %v): %s, want unchanged", prune, c)
			}
		}
		wantCalls(t, fleet)
	}
	if _, err := fleet.VM(context.Background(), "myhost"); err != nil {
		t.Errorf("the host's VM is gone after a prune: %v", err)
	}
}

// checkCreatedInOrder checks that every scope of the file was created
// before its VMs.
func checkCreatedInOrder(tb testing.TB, f *File, calls []string) {
	tb.Helper()
	for _, s := range f.Scopes {
		at := slices.Index(calls, "CreateScope "+s.Spec.Name)
		if at < 0 {
			tb.Errorf("scope %s not created", s.Spec.Name)
		}
		for _, vm := range s.VMs {
			if i := slices.Index(calls, "CreateVM "+vm.Spec.Name); i < at {
				tb.Errorf("vm %s created at call %d, its scope %s at %d", vm.Spec.Name, i, s.Spec.Name, at)
			}
		}
	}
}

// checkFleetIsFile checks that the fleet has every scope and VM of the file
// as declared.
func checkFleetIsFile(tb testing.TB, fleet *testFleet, f *File) {
	tb.Helper()
	ctx := context.Background()
	check := func(vm VM, scope string) {
		have, err := fleet.VM(ctx, vm.Spec.Name)
		if err != nil {
			tb.Errorf("vm %s: %v", vm.Spec.Name, err)
			return
		}
		ok := have.Scope == scope && have.Priority == vm.Spec.Priority &&
			slices.Equal(have.Addresses, vm.Spec.Addresses) &&
			(vm.Spec.UpdateDomain == nil || *vm.Spec.UpdateDomain == have.UpdateDomain) &&
			(vm.Spec.FaultDomain == nil || *vm.Spec.FaultDomain == have.FaultDomain)
		if !ok {
			tb.Errorf("vm %s is %+v, want %+v in scope %s", vm.Spec.Name, have, vm.Spec, scope)
		}
	}
	for _, s := range f.Scopes {
		have, err := fleet.Scope(ctx, s.Spec.Name)
		if err != nil {
			tb.Errorf("scope %s: %v", s.Spec.Name, err)
			continue
		}
		if have.Kind != s.Spec.Kind || have.UpdateDomains != s.Spec.UpdateDomains ||
			have.FaultDomains != s.Spec.FaultDomains {
			tb.Errorf("scope %s is %+v, want %+v", s.Spec.Name, have, s.Spec)
		}
		for _, vm := range s.VMs {
			check(vm, s.Spec.Name)
		}
	}
	for _, vm := range f.VMs {
		check(vm, vm.Spec.Name)
	}
}

// prunable is a fleet with the host's VM and what the small file below
// leaves out: a scope with VMs, an empty scope, a standalone VM, and a VM
// more in the scope the file declares.
func prunable(tb testing.TB) *testFleet {
	tb.Helper()
	fleet := newHostFleet(tb)
	fleet.mustScope(tb, forewarn.ScopeSpec{Name: "old"})
	fleet.mustVM(tb, forewarn.VMSpec{Name: "old-1", Scope: "old", Addresses: []string{"127.0.20.2"}})
	fleet.mustVM(tb, forewarn.VMSpec{Name: "old-0", Scope: "old", Addresses: []string{"127.0.20.1"}})
	fleet.mustScope(tb, forewarn.ScopeSpec{Name: "empty"})
	fleet.mustVM(tb, forewarn.VMSpec{Name: "lone"})
	fleet.mustScope(tb, forewarn.ScopeSpec{Name: "web"})
	fleet.mustVM(tb, forewarn.VMSpec{Name: "web-9", Scope: "web"})
	fleet.mustVM(tb, forewarn.VMSpec{Name: "guest", Scope: "default"})
	fleet.reset()
	return fleet
}

const smallFile = `
scopes:
  - name: web
    vms:
      - name: web-0
        addresses: [127.0.20.1]
`

func TestApplyWithoutPruneRemovesNothing(t *testing.T) {
	fleet := prunable(t)
	f := mustParse(t, strings.Replace(smallFile, "127.0.20.1", "127.0.20.9", 1))
	before := fleet.names(t, KindVM)
	changes := mustApply(t, fleet, f, false)
	wantSummary(t, changes, "unchanged scope web", "create vm web-0")
	wantCalls(t, fleet, "CreateVM web-0")
	after := fleet.names(t, KindVM)
	for _, name := range before {
		if !slices.Contains(after, name) {
			t.Errorf("vm %s removed without prune", name)
		}
	}
}

func TestApplyPrune(t *testing.T) {
	fleet := prunable(t)
	f := mustParse(t, smallFile)
	changes := mustApply(t, fleet, f, true)
	wantSummary(t, changes,
		"delete vm lone", "delete vm old-0", "delete vm old-1", "delete vm web-9",
		"delete scope empty", "delete scope old",
		"unchanged scope web", "create vm web-0")
	wantCalls(t, fleet,
		"DeleteVM lone", "DeleteVM old-0", "DeleteVM old-1", "DeleteVM web-9",
		"DeleteScope empty", "DeleteScope old", "CreateVM web-0")
	if got := fleet.names(t, KindScope); !slices.Equal(got, []string{"default", "web"}) {
		t.Errorf("scopes after prune = %v, want default and web", got)
	}
	if got := fleet.names(t, KindVM); !slices.Equal(got, []string{"guest", "MyHost", "web-0"}) {
		t.Errorf("vms after prune = %v, want guest, MyHost, web-0", got)
	}
	if changes[0].Detail != "standalone, with its scope" || changes[1].Detail != "scope old" {
		t.Errorf("details of deletions: %q, %q", changes[0].Detail, changes[1].Detail)
	}

	fleet.reset()
	again := mustApply(t, fleet, f, true)
	wantSummary(t, again, "unchanged scope web", "unchanged vm web-0")
	wantCalls(t, fleet)
}

func TestApplyPruneKeepsTheHostVMInTheFile(t *testing.T) {
	fleet := newHostFleet(t)
	f := mustParse(t, `
scopes:
  - name: default
    vms:
      - name: myhost
        addresses: ["::1", 127.0.0.1]
`)
	changes := mustApply(t, fleet, f, true)
	wantSummary(t, changes, "unchanged scope default", "unchanged vm myhost")
	wantCalls(t, fleet)
}

func TestApplyPruneFreesNamesAndAddresses(t *testing.T) {
	const text = `
scopes:
  - name: old
    vms:
      - name: new
        addresses: [127.0.20.1]
`
	fleet := newTestFleet(t)
	fleet.mustVM(t, forewarn.VMSpec{Name: "old", Addresses: []string{"127.0.20.1"}})
	fleet.reset()
	f := mustParse(t, text)

	_, err := Apply(context.Background(), fleet, f, false)
	if !errors.Is(err, forewarn.ErrConflict) {
		t.Fatalf("apply without prune: %v, want a conflict", err)
	}
	for _, want := range []string{
		"fleet.yaml:3: scope old: kind: file availability-set, server standalone",
		`fleet.yaml:5: vm new: addresses: 127.0.20.1 belongs to vm "old"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	wantCalls(t, fleet)

	changes := mustApply(t, fleet, f, true)
	wantSummary(t, changes, "delete vm old", "create scope old", "create vm new")
	wantCalls(t, fleet, "DeleteVM old", "CreateScope old", "CreateVM new")
}

func TestApplyMatchesCaseAndOmittedDomains(t *testing.T) {
	fleet := newTestFleet(t)
	fleet.mustScope(t, forewarn.ScopeSpec{Name: "Web", Kind: forewarn.ScaleSet, TerminateNotice: forewarn.Duration(5 * time.Minute)})
	three := 3
	fleet.mustVM(t, forewarn.VMSpec{Name: "WEB-0", Scope: "Web", UpdateDomain: &three,
		Addresses: []string{"127.0.0.9", "::2"}, Priority: forewarn.Spot})
	fleet.mustVM(t, forewarn.VMSpec{Name: "Solo"})
	fleet.reset()
	f := mustParse(t, `
scopes:
  - name: web
    kind: scale-set
    vms:
      - {name: web-0, addresses: ["::2", 127.0.0.9], priority: spot}
vms:
  - name: solo
`)
	changes := mustApply(t, fleet, f, true)
	wantSummary(t, changes, "unchanged scope web", "unchanged vm web-0", "unchanged vm solo")
	wantCalls(t, fleet)
}

func TestApplyRefusesConflicts(t *testing.T) {
	const file = `scopes:
  - name: web
    kind: scale-set
    updateDomains: 4
    terminateNotice: 10m
    vms:
      - name: web-0
        updateDomain: 1
        faultDomain: 2
        addresses: [127.0.30.1]
        priority: Spot
  - name: fresh
    vms: [{name: fresh-0}]
vms:
  - name: solo
`
	spec := func(mod func(*forewarn.ScopeSpec)) forewarn.ScopeSpec {
		s := forewarn.ScopeSpec{Name: "web", Kind: forewarn.ScaleSet, UpdateDomains: 4,
			TerminateNotice: forewarn.Duration(10 * time.Minute)}
		if mod != nil {
			mod(&s)
		}
		return s
	}
	vm := func(mod func(*forewarn.VMSpec)) forewarn.VMSpec {
		one, two := 1, 2
		v := forewarn.VMSpec{Name: "web-0", Scope: "web", UpdateDomain: &one, FaultDomain: &two,
			Addresses: []string{"127.0.30.1"}, Priority: forewarn.Spot}
		if mod != nil {
			mod(&v)
		}
		return v
	}
	tests := []struct {
		name  string
		setup func(tb testing.TB, fleet *testFleet)
		want  string
		// pruned: prune removes the cause of the conflict.
		pruned bool
	}{
		{"scope kind", func(tb testing.TB, fleet *testFleet) {
			fleet.mustScope(tb, spec(func(s *forewarn.ScopeSpec) { s.Kind = forewarn.CloudService }))
		}, "fleet.yaml:2: scope web: kind: file scale-set, server cloud-service", false},
		{"domain counts", func(tb testing.TB, fleet *testFleet) {
			fleet.mustScope(tb, spec(func(s *forewarn.ScopeSpec) { s.UpdateDomains, s.FaultDomains = 5, 2 }))
		}, "fleet.yaml:2: scope web: updateDomains: file 4, server 5; faultDomains: file 3, server 2", false},
		{"terminate notice", func(tb testing.TB, fleet *testFleet) {
			fleet.mustScope(tb, spec(func(s *forewarn.ScopeSpec) { s.TerminateNotice = 0 }))
		}, "fleet.yaml:2: scope web: terminateNotice: file 10m, server 5m", false},
		{"scope is a standalone VM's", func(tb testing.TB, fleet *testFleet) {
			fleet.mustVM(tb, forewarn.VMSpec{Name: "web"})
		}, "fleet.yaml:2: scope web: kind: file scale-set, server standalone", true},
		{"vm in another scope", func(tb testing.TB, fleet *testFleet) {
			fleet.mustScope(tb, spec(nil))
			fleet.mustScope(tb, forewarn.ScopeSpec{Name: "api", Kind: forewarn.ScaleSet, UpdateDomains: 4})
			fleet.mustVM(tb, vm(func(v *forewarn.VMSpec) { v.Scope = "api" }))
		}, "fleet.yaml:7: vm web-0: scope: file web, server api", false},
		{"vm standalone on the server", func(tb testing.TB, fleet *testFleet) {
			fleet.mustScope(tb, spec(nil))
			fleet.mustVM(tb, vm(func(v *forewarn.VMSpec) { v.Scope, v.UpdateDomain, v.FaultDomain = "", nil, nil }))
		}, "fleet.yaml:7: vm web-0: scope: file web, server (standalone); updateDomain: file 1, server 0; faultDomain: file 2, server 0", false},
		{"standalone vm in a scope on the server", func(tb testing.TB, fleet *testFleet) {
			fleet.mustScope(tb, spec(nil))
			fleet.mustScope(tb, forewarn.ScopeSpec{Name: "other"})
			fleet.mustVM(tb, forewarn.VMSpec{Name: "solo", Scope: "other"})
		}, "fleet.yaml:15: vm solo: scope: file (standalone), server other", false},
		{"vm fields", func(tb testing.TB, fleet *testFleet) {
			fleet.mustScope(tb, spec(nil))
			fleet.mustVM(tb, vm(func(v *forewarn.VMSpec) {
				v.Addresses, v.Priority = []string{"127.0.30.2", "127.0.30.1"}, forewarn.Regular
			}))
		}, "fleet.yaml:7: vm web-0: addresses: file [127.0.30.1], server [127.0.30.1, 127.0.30.2]; priority: file Spot, server Regular", false},
		{"address taken", func(tb testing.TB, fleet *testFleet) {
			fleet.mustScope(tb, spec(nil))
			fleet.mustVM(tb, vm(func(v *forewarn.VMSpec) { v.Name = "web-7" }))
		}, `fleet.yaml:7: vm web-0: addresses: 127.0.30.1 belongs to vm "web-7"`, true},
		{"standalone name taken by a scope", func(tb testing.TB, fleet *testFleet) {
			fleet.mustScope(tb, forewarn.ScopeSpec{Name: "Solo"})
		}, `fleet.yaml:15: vm solo: name: the fleet has a scope "Solo", and a standalone VM's own scope takes its name`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fleet := newHostFleet(t)
			fleet.mustVM(t, forewarn.VMSpec{Name: "stray"})
			tt.setup(t, fleet)
			fleet.reset()
			f := mustParse(t, file)
			changes, err := Apply(context.Background(), fleet, f, false)
			if !errors.Is(err, forewarn.ErrConflict) || changes != nil {
				t.Fatalf("apply = %v, %v; want no changes and a conflict", changes, err)
			}
			if !strings.HasSuffix(err.Error(), "\n  "+tt.want) {
				t.Errorf("error:\n%v\nwant its last line:\n  %s", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "fleet.yaml: 1 conflict with the fleet, nothing was changed:\n") {
				t.Errorf("error:\n%v\nwant one conflict", err)
			}
			wantCalls(t, fleet)
			checkPrune(t, fleet, f, tt.pruned)
		})
	}
}

// checkPrune applies a file in conflict with the fleet with prune: it must
// succeed if pruned says prune removes the cause, else change nothing.
func checkPrune(tb testing.TB, fleet *testFleet, f *File, pruned bool) {
	tb.Helper()
	planned, err := Plan(context.Background(), fleet, f, true)
	if err != nil {
		tb.Fatal(err)
	}
	conflicts := 0
	for _, c := range planned {
		if c.Action == ActionConflict {
			conflicts++
		}
	}
	wantCalls(tb, fleet)
	_, err = Apply(context.Background(), fleet, f, true)
	switch {
	case pruned && (conflicts > 0 || err != nil):
		tb.Errorf("with prune: %d conflicts planned, apply: %v; want none", conflicts, err)
	case !pruned && (conflicts != 1 || !errors.Is(err, forewarn.ErrConflict)):
		tb.Errorf("with prune: %d conflicts planned, apply: %v; want 1 and refused", conflicts, err)
	case !pruned:
		wantCalls(tb, fleet)
	}
}

func TestPlanChangesNothing(t *testing.T) {
	fleet := prunable(t)
	f := loadExample(t)
	changes, err := Plan(context.Background(), fleet, f, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) == 0 || changes[0].Action != ActionDelete {
		t.Errorf("plan = %v, want deletions first", changes)
	}
	wantCalls(t, fleet)
	if got := changes[len(changes)-1]; got.Action != ActionCreate || got.Kind != KindVM || got.Name != "jumpbox" ||
		got.Detail != "standalone, Regular, 127.0.14.1" {
		t.Errorf("last change = %+v, want the creation of jumpbox", got)
	}
}

func TestChangeDetails(t *testing.T) {
	fleet := newTestFleet(t)
	f := mustParse(t, `
scopes:
  - name: pool
    kind: scale-set
    updateDomains: 2
    faultDomains: 1
    terminateNotice: 15m
    vms:
      - {name: p-0, updateDomain: 1, faultDomain: 0, priority: Spot, addresses: [127.0.0.2, "::5"]}
`)
	changes, err := Plan(context.Background(), fleet, f, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"create scope pool: scale-set, 2 update domains, 1 fault domain, terminate notice 15m",
		"create vm p-0: scope pool, update domain 1, fault domain 0, Spot, 127.0.0.2, ::5",
	}
	for i, c := range changes {
		if c.String() != want[i] {
			t.Errorf("change %d = %q, want %q", i, c, want[i])
		}
	}
}

// TestApplyStopsAtTheFirstFailure: the creates go in one batch, all or
// none, so a failure of one leaves the fleet as it was.
func TestApplyStopsAtTheFirstFailure(t *testing.T) {
	fleet := newTestFleet(t)
	fleet.store.failVM = "web-1"
	f := mustParse(t, `
scopes:
  - name: web
    vms: [{name: web-0}, {name: web-1}, {name: web-2}]
`)
	changes, err := Apply(context.Background(), fleet, f, false)
	want := "apply fleet.yaml: create 4 scopes and VMs, scope web to vm web-2: the store failed to write vm web-1"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	wantSummary(t, changes)
	if scopes, vms := fleet.names(t, KindScope), fleet.names(t, KindVM); len(scopes)+len(vms) != 0 {
		t.Errorf("a failed batch left scopes %v and VMs %v", scopes, vms)
	}
}

// TestApplyInBatches: 2,500 VMs are created 1,000 at a time; a store that
// takes fewer has the batch halved until it fits, and every change is
// reported in the plan's order.
func TestApplyInBatches(t *testing.T) {
	var file strings.Builder
	file.WriteString("scopes:\n  - name: big\n    vms:\n")
	for i := range 2500 {
		fmt.Fprintf(&file, "      - {name: big-%04d}\n", i)
	}
	for _, c := range []struct {
		maxWrites, wantTooLarge int
	}{{0, 0}, {300, 2}} { // 1000 -> 500 -> 250
		fleet := newTestFleet(t)
		fleet.store.maxWrites = c.maxWrites
		changes, err := Apply(context.Background(), fleet, mustParse(t, file.String()), false)
		if err != nil {
			t.Fatalf("max writes %d: %v", c.maxWrites, err)
		}
		made := len(fleet.names(t, KindVM))
		if len(changes) != 2501 || changes[0].Name != "big" || changes[2500].Name != "big-2499" || made != 2500 {
			t.Errorf("max writes %d: %d changes, %d VMs made", c.maxWrites, len(changes), made)
		}
		if n := fleet.store.tooLarge.Load(); n != int64(c.wantTooLarge) {
			t.Errorf("max writes %d: %d batches refused as too large, want %d", c.maxWrites, n, c.wantTooLarge)
		}
	}
}

func TestApplyStopsWhenCancelled(t *testing.T) {
	fleet := newTestFleet(t)
	f := mustParse(t, smallFile)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	changes, err := Apply(ctx, fleet, f, false)
	if !errors.Is(err, context.Canceled) || len(changes) != 0 {
		t.Errorf("apply with a cancelled context = %v, %v", changes, err)
	}
	wantCalls(t, fleet)
}

func TestApplyWithoutFile(t *testing.T) {
	if _, err := Apply(context.Background(), newTestFleet(t), nil, false); !errors.Is(err, forewarn.ErrInvalid) {
		t.Errorf("apply of no file = %v, want ErrInvalid", err)
	}
}
