package admin_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/forewarn/forewarn"
)

// userLimit is the number of user operations in flight a scope allows.
const userLimit = 10

// fakeFleet is an in-memory forewarn.Fleet with enough of the fabric's rules
// to exercise every route. It counts calls and changes, and fails every
// call with err if set.
type fakeFleet struct {
	mu      sync.Mutex
	now     time.Time
	scopes  map[string]*forewarn.Scope
	vms     map[string]*forewarn.VM
	events  map[string]*forewarn.Event
	order   []string // ids of the events in flight, oldest first
	history []*forewarn.Event
	nextID  int
	calls   int
	changes int
	err     error

	campaigns map[string]*forewarn.Campaign
	// campaignOrder holds the campaign ids, oldest first.
	campaignOrder []string
	// chaos holds the chaos rules, oldest first, expired ones included.
	chaos []*forewarn.ChaosRule
	// nextCampaign and nextChaos number the ids of campaigns and rules.
	nextCampaign, nextChaos int

	// vmQueries and eventQueries are the queries of the listings, in
	// order, as the API parsed them.
	vmQueries    []forewarn.VMQuery
	eventQueries []forewarn.EventQuery
}

var _ forewarn.Fleet = (*fakeFleet)(nil)

func newFakeFleet() *fakeFleet {
	return &fakeFleet{
		// Nanoseconds, so that a round trip that loses precision shows.
		now:    time.Date(2025, 3, 14, 9, 26, 53, 589793238, time.UTC),
		scopes: map[string]*forewarn.Scope{},
		vms:    map[string]*forewarn.VM{},
		events: map[string]*forewarn.Event{},

		campaigns: map[string]*forewarn.Campaign{},
	}
}

// Status shows one replica that leads.
func (f *fakeFleet) Status(context.Context) (*forewarn.Status, error) {
	defer f.lock()()
	if f.err != nil {
		return nil, f.err
	}
	self := forewarn.Replica{ID: "fake-1", Host: "fake", PID: 1, Started: f.now, Leader: true}
	return &forewarn.Status{Store: "memory", Self: self.ID, Leader: self.ID, Replicas: []forewarn.Replica{self}}, nil
}

// lock locks the fleet, counts the call and returns the unlock.
func (f *fakeFleet) lock() (unlock func()) {
	f.mu.Lock()
	f.calls++
	return f.mu.Unlock
}

// tick returns the time and moves it on by a second and a bit.
func (f *fakeFleet) tick() time.Time {
	t := f.now
	f.now = f.now.Add(time.Second + 1234*time.Nanosecond)
	return t
}

// counts returns the number of calls and of changes so far.
func (f *fakeFleet) counts() (calls, changes int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls, f.changes
}

// setErr makes every later call fail with err.
func (f *fakeFleet) setErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

func key(name string) string { return strings.ToLower(name) }

func clone[T any](v *T) *T {
	c := *v
	return &c
}

func (f *fakeFleet) CreateScope(_ context.Context, spec forewarn.ScopeSpec) (*forewarn.Scope, error) {
	defer f.lock()()
	if f.err != nil {
		return nil, f.err
	}
	return f.createScope(spec)
}

// CreateBatch creates as CreateScope and CreateVM do, one by one; the
// fabric's (all or none) is tested through fabricEnv.
func (f *fakeFleet) CreateBatch(ctx context.Context, scopes []forewarn.ScopeSpec, vms []forewarn.VMSpec) error {
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

func (f *fakeFleet) createScope(spec forewarn.ScopeSpec) (*forewarn.Scope, error) {
	if !forewarn.ValidName(spec.Name) {
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "invalid scope name %q", spec.Name)
	}
	if _, ok := f.scopes[key(spec.Name)]; ok {
		return nil, forewarn.Errorf(forewarn.ErrConflict, "scope %q already exists", spec.Name)
	}
	s := &forewarn.Scope{
		Name: spec.Name, Kind: cmp(spec.Kind, forewarn.AvailabilitySet),
		UpdateDomains: cmp(spec.UpdateDomains, 5), FaultDomains: cmp(spec.FaultDomains, 3),
		TerminateNotice: cmp(spec.TerminateNotice, forewarn.Duration(5*time.Minute)),
		Incarnation:     1, CreatedAt: f.tick(),
	}
	f.scopes[key(s.Name)] = s
	f.changes++
	return clone(s), nil
}

// cmp returns v, or def if v is zero.
func cmp[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

func (f *fakeFleet) Scopes(context.Context) ([]*forewarn.Scope, error) {
	defer f.lock()()
	if f.err != nil {
		return nil, f.err
	}
	var out []*forewarn.Scope
	for _, k := range sortedKeys(f.scopes) {
		out = append(out, clone(f.scopes[k]))
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (f *fakeFleet) Scope(_ context.Context, name string) (*forewarn.Scope, error) {
	defer f.lock()()
	if f.err != nil {
		return nil, f.err
	}
	s, ok := f.scopes[key(name)]
	if !ok {
		return nil, forewarn.Errorf(forewarn.ErrNotFound, "scope %q not found", name)
	}
	return clone(s), nil
}

func (f *fakeFleet) DeleteScope(_ context.Context, name string) error {
	defer f.lock()()
	if f.err != nil {
		return f.err
	}
	if _, ok := f.scopes[key(name)]; !ok {
		return forewarn.Errorf(forewarn.ErrNotFound, "scope %q not found", name)
	}
	for _, vm := range f.vms {
		if forewarn.SameName(vm.Scope, name) {
			return forewarn.Errorf(forewarn.ErrConflict, "scope %q still has VMs", name)
		}
	}
	delete(f.scopes, key(name))
	f.changes++
	return nil
}

func (f *fakeFleet) CreateVM(_ context.Context, spec forewarn.VMSpec) (*forewarn.VM, error) {
	defer f.lock()()
	if f.err != nil {
		return nil, f.err
	}
	if !forewarn.ValidName(spec.Name) {
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "invalid VM name %q", spec.Name)
	}
	if _, ok := f.vms[key(spec.Name)]; ok {
		return nil, forewarn.Errorf(forewarn.ErrConflict, "VM %q already exists", spec.Name)
	}
	scope, err := f.scopeOf(spec)
	if err != nil {
		return nil, err
	}
	vm := &forewarn.VM{
		Name: spec.Name, ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", len(f.vms)+1),
		Scope: scope.Name, UpdateDomain: deref(spec.UpdateDomain), FaultDomain: deref(spec.FaultDomain),
		Addresses: spec.Addresses, Priority: cmp(spec.Priority, forewarn.Regular),
		State: forewarn.Running, CreatedAt: f.tick(),
	}
	if vm.UpdateDomain >= scope.UpdateDomains {
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "update domain %d out of range", vm.UpdateDomain)
	}
	f.vms[key(vm.Name)] = vm
	f.changes++
	return clone(vm), nil
}

// scopeOf returns the scope of a new VM, creating a standalone one if the
// spec names none.
func (f *fakeFleet) scopeOf(spec forewarn.VMSpec) (*forewarn.Scope, error) {
	if spec.Scope == "" {
		return f.createScope(forewarn.ScopeSpec{Name: spec.Name, Kind: forewarn.Standalone, UpdateDomains: 1, FaultDomains: 1})
	}
	s, ok := f.scopes[key(spec.Scope)]
	if !ok {
		return nil, forewarn.Errorf(forewarn.ErrNotFound, "scope %q not found", spec.Scope)
	}
	return s, nil
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// VMs lists a page of the VMs q selects; its cursor is the last VM's name.
func (f *fakeFleet) VMs(_ context.Context, q forewarn.VMQuery) ([]*forewarn.VM, string, error) {
	defer f.lock()()
	f.vmQueries = append(f.vmQueries, q)
	if f.err != nil {
		return nil, "", f.err
	}
	if _, ok := f.scopes[key(q.Scope)]; q.Scope != "" && !ok {
		return nil, "", forewarn.Errorf(forewarn.ErrNotFound, "scope %q not found", q.Scope)
	}
	var out []*forewarn.VM
	for _, k := range sortedKeys(f.vms) {
		if vm := f.vms[k]; k > key(q.After) && q.Match(vm) {
			out = append(out, clone(vm))
		}
	}
	return fakePage(out, q.Limit, func(vm *forewarn.VM) string { return vm.Name })
}

// fakePage cuts the first page of limit items (0 for all) from items and
// returns it with the cursor of its last item if more follow.
func fakePage[T any](items []T, limit int, cursor func(T) string) ([]T, string, error) {
	if limit == 0 || len(items) <= limit {
		return items, "", nil
	}
	return items[:limit], cursor(items[limit-1]), nil
}

func (f *fakeFleet) VM(_ context.Context, name string) (*forewarn.VM, error) {
	defer f.lock()()
	if f.err != nil {
		return nil, f.err
	}
	vm, ok := f.vms[key(name)]
	if !ok {
		return nil, forewarn.Errorf(forewarn.ErrNotFound, "VM %q not found", name)
	}
	return clone(vm), nil
}

func (f *fakeFleet) DeleteVM(_ context.Context, name string) error {
	defer f.lock()()
	if f.err != nil {
		return f.err
	}
	if _, ok := f.vms[key(name)]; !ok {
		return forewarn.Errorf(forewarn.ErrNotFound, "VM %q not found", name)
	}
	delete(f.vms, key(name))
	f.changes++
	return nil
}
