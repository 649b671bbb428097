package admin_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/forewarn/forewarn"
)

// listScopes are the scopes of mustMakeFleet: name, kind and update
// domains.
var listScopes = []forewarn.ScopeSpec{
	{Name: "web", UpdateDomains: 3},
	{Name: "API", UpdateDomains: 2},
	{Name: "db", UpdateDomains: 3},
	{Name: "batch", Kind: forewarn.ScaleSet, UpdateDomains: 3},
	{Name: "cache", UpdateDomains: 2},
}

// vmsPerScope is how many VMs each scope of mustMakeFleet has.
const vmsPerScope = 60

// mustMakeFleet makes 300 VMs in the five listScopes, every third one
// Spot and every other one's name in capitals, and five standalone VMs.
func (env *testEnv) mustMakeFleet(tb testing.TB) {
	tb.Helper()
	ctx := tb.Context()
	for _, spec := range listScopes {
		if _, err := env.fab.CreateScope(ctx, spec); err != nil {
			tb.Fatal(err)
		}
		for i := range vmsPerScope {
			name := fmt.Sprintf("%s-%03d", strings.ToLower(spec.Name), i)
			if i%2 == 1 {
				name = strings.ToUpper(name)
			}
			vm := forewarn.VMSpec{Name: name, Scope: spec.Name, Priority: forewarn.Regular}
			if i%3 == 0 {
				vm.Priority = forewarn.Spot
			}
			env.mustMakeVM(tb, vm)
		}
	}
	for i := range 5 {
		env.mustMakeVM(tb, forewarn.VMSpec{Name: fmt.Sprintf("solo-%d", i)})
	}
	slices.SortFunc(env.vms, func(a, b *forewarn.VM) int {
		return forewarn.CompareNames(a.Name, b.Name)
	})
}

func (env *testEnv) mustMakeVM(tb testing.TB, spec forewarn.VMSpec) {
	tb.Helper()
	vm, err := env.fab.CreateVM(tb.Context(), spec)
	if err != nil {
		tb.Fatal(err)
	}
	env.vms = append(env.vms, vm)
}

// mustMakeEvents makes, in each scope of mustMakeFleet, a Scheduled user
// Reboot, a Started user Redeploy, a Preempt of a Spot VM, a Terminate in
// the scale set, a hardware failure (a Started Platform Reboot) and a
// degraded VM (a Scheduled Platform Redeploy); then a Freeze campaign over
// the standalone solo-0. It returns every event in flight, oldest first.
func (env *testEnv) mustMakeEvents(tb testing.TB) []*forewarn.Event {
	tb.Helper()
	ctx, f := tb.Context(), env.fab
	for _, spec := range listScopes {
		vm := func(i int) string { return fmt.Sprintf("%s-%03d", strings.ToLower(spec.Name), i) }
		must(f.Operate(ctx, vm(0), forewarn.OpRestart))(tb)
		must(f.Approve(ctx, must(f.Operate(ctx, vm(2), forewarn.OpRedeploy))(tb).ID))(tb)
		must(f.Operate(ctx, vm(3), forewarn.OpEvict))(tb)
		if spec.Kind == forewarn.ScaleSet {
			must(f.Operate(ctx, vm(4), forewarn.OpTerminate))(tb)
		}
		must(f.Fail(ctx, vm(6)))(tb)
		must(f.Degrade(ctx, vm(8), 0))(tb)
	}
	must(f.StartCampaign(ctx, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: []string{"solo-0"}}))(tb)
	events := whole(f.Events(ctx, forewarn.EventQuery{}))(tb)
	if !slices.ContainsFunc(events, func(e *forewarn.Event) bool { return e.Type == forewarn.Freeze }) {
		tb.Fatal("the campaign made no Freeze event")
	}
	return events
}
