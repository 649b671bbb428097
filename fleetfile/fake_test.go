package fleetfile

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// errFake is what the fake fleet answers for what a fleet file never uses.
var errFake = errors.New("not implemented by the fake fleet")

// fakeFleet is an in-memory fleet with the fabric's rules for scopes and
// VMs. It records every call that changes it and can fail one of them.
type fakeFleet struct {
	mu      sync.Mutex
	scopes  map[string]*forewarn.Scope
	vms     map[string]*forewarn.VM
	changes []string
	failOn  string
	// maxBatch, if set, is the largest batch CreateBatch takes; a larger
	// one is refused as too large, as etcd refuses a transaction, and
	// counted in tooLarge.
	maxBatch int
	tooLarge int
}

var _ forewarn.Fleet = (*fakeFleet)(nil)

// newFakeFleet returns an empty fake fleet.
func newFakeFleet(tb testing.TB) *fakeFleet {
	tb.Helper()
	return &fakeFleet{scopes: map[string]*forewarn.Scope{}, vms: map[string]*forewarn.VM{}}
}

// newHostFleet returns a fake fleet with the host's default VM, as the
// server creates it at first start.
func newHostFleet(tb testing.TB) *fakeFleet {
	tb.Helper()
	f := newFakeFleet(tb)
	f.mustScope(tb, forewarn.ScopeSpec{Name: "default"})
	f.mustVM(tb, forewarn.VMSpec{Name: "MyHost", Scope: "default", Addresses: []string{"127.0.0.1", "::1"}})
	f.reset()
	return f
}

func (f *fakeFleet) mustScope(tb testing.TB, spec forewarn.ScopeSpec) {
	tb.Helper()
	if _, err := f.CreateScope(context.Background(), spec); err != nil {
		tb.Fatalf("create scope %s: %v", spec.Name, err)
	}
}

func (f *fakeFleet) mustVM(tb testing.TB, spec forewarn.VMSpec) {
	tb.Helper()
	if _, err := f.CreateVM(context.Background(), spec); err != nil {
		tb.Fatalf("create vm %s: %v", spec.Name, err)
	}
}

// reset forgets the calls recorded so far.
func (f *fakeFleet) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.changes = nil
}

// calls returns the calls that changed the fleet, as "CreateVM web-0".
func (f *fakeFleet) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.changes)
}

// record notes a call, and fails it if it is the one to fail.
func (f *fakeFleet) record(call string) error {
	f.changes = append(f.changes, call)
	if call == f.failOn {
		return fmt.Errorf("fake failure of %s", call)
	}
	return nil
}

// CreateBatch creates as CreateScope and CreateVM do, one by one, and
// undoes them all at the first failure.
func (f *fakeFleet) CreateBatch(ctx context.Context, scopes []forewarn.ScopeSpec, vms []forewarn.VMSpec) error {
	f.mu.Lock()
	if n := len(scopes) + len(vms); f.maxBatch > 0 && n > f.maxBatch {
		f.tooLarge++
		f.mu.Unlock()
		return fmt.Errorf("fake: a batch of %d: %w", n, forewarn.ErrTooLarge)
	}
	savedScopes, savedVMs := maps.Clone(f.scopes), maps.Clone(f.vms)
	f.mu.Unlock()
	err := f.createEach(ctx, scopes, vms)
	if err != nil {
		f.mu.Lock()
		f.scopes, f.vms = savedScopes, savedVMs
		f.mu.Unlock()
	}
	return err
}

func (f *fakeFleet) createEach(ctx context.Context, scopes []forewarn.ScopeSpec, vms []forewarn.VMSpec) error {
	for _, spec := range scopes {
		if _, err := f.CreateScope(ctx, spec); err != nil {
			return err
		}
	}
	for _, spec := range vms {
		if _, err := f.CreateVM(ctx, spec); err != nil {
			return err
		}
	}
	return nil
}

func (f *fakeFleet) CreateScope(_ context.Context, spec forewarn.ScopeSpec) (*forewarn.Scope, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.record("CreateScope " + spec.Name); err != nil {
		return nil, err
	}
	if f.scopes[key(spec.Name)] != nil {
		return nil, forewarn.Errorf(forewarn.ErrConflict, "scope %q already exists", spec.Name)
	}
	s := &forewarn.Scope{Name: spec.Name, Kind: spec.Kind, UpdateDomains: spec.UpdateDomains,
		FaultDomains: spec.FaultDomains, TerminateNotice: spec.TerminateNotice, Incarnation: 1}
	if s.Kind == "" {
		s.Kind = forewarn.AvailabilitySet
	}
	if s.UpdateDomains == 0 {
		s.UpdateDomains = forewarn.DefaultUpdateDomains
	}
	if s.FaultDomains == 0 {
		s.FaultDomains = forewarn.DefaultFaultDomains
	}
	if s.TerminateNotice == 0 {
		s.TerminateNotice = forewarn.Duration(5 * time.Minute)
	}
	f.scopes[key(s.Name)] = s
	c := *s
	return &c, nil
}

func (f *fakeFleet) Scopes(context.Context) ([]*forewarn.Scope, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]*forewarn.Scope, 0, len(f.scopes))
	for _, s := range f.scopes {
		c := *s
		out = append(out, &c)
	}
	return out, nil
}

func (f *fakeFleet) Scope(_ context.Context, name string) (*forewarn.Scope, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.scopes[key(name)]
	if s == nil {
		return nil, forewarn.Errorf(forewarn.ErrNotFound, "scope %q does not exist", name)
	}
	c := *s
	return &c, nil
}

func (f *fakeFleet) DeleteScope(_ context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.record("DeleteScope " + name); err != nil {
		return err
	}
	if f.scopes[key(name)] == nil {
		return forewarn.Errorf(forewarn.ErrNotFound, "scope %q does not exist", name)
	}
	for _, vm := range f.vms {
		if forewarn.SameName(vm.Scope, name) {
			return forewarn.Errorf(forewarn.ErrConflict, "scope %q still has VMs", name)
		}
	}
	delete(f.scopes, key(name))
	return nil
}

func (f *fakeFleet) CreateVM(_ context.Context, spec forewarn.VMSpec) (*forewarn.VM, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.record("CreateVM " + spec.Name); err != nil {
		return nil, err
	}
	if f.vms[key(spec.Name)] != nil {
		return nil, forewarn.Errorf(forewarn.ErrConflict, "vm %q already exists", spec.Name)
	}
	if err := f.addressesFree(spec.Addresses); err != nil {
		return nil, err
	}
	scope, err := f.scopeFor(spec)
	if err != nil {
		return nil, err
	}
	vm := &forewarn.VM{Name: spec.Name, ID: "id-" + spec.Name, Scope: scope.Name,
		Addresses: slices.Clone(spec.Addresses), Priority: spec.Priority, State: forewarn.Running}
	if vm.Priority == "" {
		vm.Priority = forewarn.Regular
	}
	if vm.UpdateDomain, err = f.domain(spec.UpdateDomain, scope.UpdateDomains); err != nil {
		return nil, err
	}
	if vm.FaultDomain, err = f.domain(spec.FaultDomain, scope.FaultDomains); err != nil {
		return nil, err
	}
	if spec.Scope == "" {
		f.scopes[key(scope.Name)] = scope
	}
	f.vms[key(vm.Name)] = vm
	c := *vm
	return &c, nil
}

// addressesFree refuses an address that is not canonical or that a VM owns.
func (f *fakeFleet) addressesFree(addrs []string) error {
	for _, a := range addrs {
		if p, err := netip.ParseAddr(a); err != nil || p.Unmap().String() != a {
			return forewarn.Errorf(forewarn.ErrInvalid, "address %q is not canonical", a)
		}
		for _, vm := range f.vms {
			if slices.Contains(vm.Addresses, a) {
				return forewarn.Errorf(forewarn.ErrConflict, "address %s belongs to vm %q", a, vm.Name)
			}
		}
	}
	return nil
}

// scopeFor returns the scope of a new VM, or a new standalone one.
func (f *fakeFleet) scopeFor(spec forewarn.VMSpec) (*forewarn.Scope, error) {
	if spec.Scope == "" {
		if f.scopes[key(spec.Name)] != nil {
			return nil, forewarn.Errorf(forewarn.ErrConflict, "scope %q already exists", spec.Name)
		}
		return &forewarn.Scope{Name: spec.Name, Kind: forewarn.Standalone, UpdateDomains: 1,
			FaultDomains: 1, TerminateNotice: forewarn.Duration(5 * time.Minute), Incarnation: 1}, nil
	}
	s := f.scopes[key(spec.Scope)]
	switch {
	case s == nil:
		return nil, forewarn.Errorf(forewarn.ErrNotFound, "scope %q does not exist", spec.Scope)
	case s.Kind == forewarn.Standalone:
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "scope %q is a standalone VM's own", s.Name)
	}
	return s, nil
}

// domain returns the asked domain, or 0 if none.
func (f *fakeFleet) domain(asked *int, count int) (int, error) {
	if asked == nil {
		return 0, nil
	}
	if *asked < 0 || *asked >= count {
		return 0, forewarn.Errorf(forewarn.ErrInvalid, "domain %d out of range", *asked)
	}
	return *asked, nil
}

// VMs lists every VM q matches, in one page: apply asks for them all.
func (f *fakeFleet) VMs(_ context.Context, q forewarn.VMQuery) ([]*forewarn.VM, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*forewarn.VM
	for _, vm := range f.vms {
		if q.Match(vm) {
			c := *vm
			c.Addresses = slices.Clone(vm.Addresses)
			out = append(out, &c)
		}
	}
	return out, "", nil
}

func (f *fakeFleet) VM(_ context.Context, name string) (*forewarn.VM, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	vm := f.vms[key(name)]
	if vm == nil {
		return nil, forewarn.Errorf(forewarn.ErrNotFound, "vm %q does not exist", name)
	}
	c := *vm
	return &c, nil
}

func (f *fakeFleet) DeleteVM(_ context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.record("DeleteVM " + name); err != nil {
		return err
	}
	vm := f.vms[key(name)]
	if vm == nil {
		return forewarn.Errorf(forewarn.ErrNotFound, "vm %q does not exist", name)
	}
	delete(f.vms, key(name))
	if s := f.scopes[key(vm.Scope)]; s != nil && s.Kind == forewarn.Standalone {
		delete(f.scopes, key(vm.Scope))
	}
	return nil
}

func (f *fakeFleet) Operate(context.Context, string, forewarn.Operation) (*forewarn.Event, error) {
	return nil, errFake
}

func (f *fakeFleet) Events(context.Context, forewarn.EventQuery) ([]*forewarn.Event, string, error) {
	return nil, "", errFake
}

func (f *fakeFleet) Event(context.Context, string) (*forewarn.Event, error) { return nil, errFake }

func (f *fakeFleet) Approve(context.Context, string) (*forewarn.Event, error) { return nil, errFake }

func (f *fakeFleet) Cancel(context.Context, string) (*forewarn.Event, error) { return nil, errFake }

func (f *fakeFleet) History(context.Context, int) ([]*forewarn.Event, error) { return nil, errFake }

func (f *fakeFleet) HistoryPage(context.Context, forewarn.HistoryQuery) ([]*forewarn.Event, string, error) {
	return nil, "", errFake
}

func (f *fakeFleet) Fail(context.Context, string) (*forewarn.Event, error) { return nil, errFake }

func (f *fakeFleet) Degrade(context.Context, string, time.Duration) (*forewarn.Event, error) {
	return nil, errFake
}

func (f *fakeFleet) Resolve(context.Context, string, forewarn.Resolution) (*forewarn.Event, error) {
	return nil, errFake
}

func (f *fakeFleet) StartCampaign(context.Context, forewarn.CampaignSpec) (*forewarn.Campaign, error) {
	return nil, errFake
}

func (f *fakeFleet) Campaigns(context.Context) ([]*forewarn.Campaign, error) { return nil, errFake }

func (f *fakeFleet) Campaign(context.Context, string) (*forewarn.Campaign, error) {
	return nil, errFake
}

func (f *fakeFleet) SteerCampaign(context.Context, string, forewarn.CampaignAction) (*forewarn.Campaign, error) {
	return nil, errFake
}

func (f *fakeFleet) AddChaos(context.Context, forewarn.ChaosSpec) (*forewarn.ChaosRule, error) {
	return nil, errFake
}

func (f *fakeFleet) Chaos(context.Context) ([]*forewarn.ChaosRule, error) { return nil, errFake }

func (f *fakeFleet) DeleteChaos(context.Context, string) error { return errFake }

func (f *fakeFleet) Status(context.Context) (*forewarn.Status, error) { return nil, errFake }

// names lists the names of the fleet's scopes or VMs, sorted.
func (f *fakeFleet) names(kind string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	if kind == KindScope {
		for _, s := range f.scopes {
			out = append(out, s.Name)
		}
	} else {
		for _, vm := range f.vms {
			out = append(out, vm.Name)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(key(a), key(b)) })
	return out
}

func key(name string) string { return string(forewarn.KeyOf(name)) }
