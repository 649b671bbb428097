package fleetfile

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/internal/fabrictest"
	"github.com/forewarn/forewarn/memstore"
)

// testFleet is the fleet the tests apply files to: the real control plane
// over an in-memory store, recording the calls that change its scopes and
// VMs, as "CreateVM web-0" (a CreateBatch as the creates it holds).
type testFleet struct {
	forewarn.Fleet
	fab   *fabric.Fabric
	store *testStore

	mu      sync.Mutex
	changes []string
}

// newTestFleet returns an empty fleet.
func newTestFleet(tb testing.TB) *testFleet {
	tb.Helper()
	store := &testStore{Store: memstore.New()}
	tb.Cleanup(func() { store.Close() })
	fab := fabrictest.New(tb, fabric.Config{Store: store})
	return &testFleet{Fleet: fab, fab: fab, store: store}
}

// newHostFleet returns a fleet with the host's default VM, MyHost, as the
// server creates it at first start.
func newHostFleet(tb testing.TB) *testFleet {
	tb.Helper()
	f := newTestFleet(tb)
	if _, err := f.fab.EnsureDefaultVM(tb.Context(), "MyHost", []string{"127.0.0.1", "::1"}); err != nil {
		tb.Fatalf("create the default VM: %v", err)
	}
	return f
}

func (f *testFleet) mustScope(tb testing.TB, spec forewarn.ScopeSpec) {
	tb.Helper()
	if _, err := f.CreateScope(context.Background(), spec); err != nil {
		tb.Fatalf("create scope %s: %v", spec.Name, err)
	}
}

func (f *testFleet) mustVM(tb testing.TB, spec forewarn.VMSpec) {
	tb.Helper()
	if _, err := f.CreateVM(context.Background(), spec); err != nil {
		tb.Fatalf("create vm %s: %v", spec.Name, err)
	}
}

// reset forgets the calls recorded so far.
func (f *testFleet) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.changes = nil
}

// calls returns the calls that changed the fleet, as "CreateVM web-0".
func (f *testFleet) calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.changes)
}

// record notes calls.
func (f *testFleet) record(calls ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.changes = append(f.changes, calls...)
}

func (f *testFleet) CreateBatch(ctx context.Context, scopes []forewarn.ScopeSpec, vms []forewarn.VMSpec) error {
	for _, s := range scopes {
		f.record("CreateScope " + s.Name)
	}
	for _, vm := range vms {
		f.record("CreateVM " + vm.Name)
	}
	return f.Fleet.CreateBatch(ctx, scopes, vms)
}

func (f *testFleet) CreateScope(ctx context.Context, spec forewarn.ScopeSpec) (*forewarn.Scope, error) {
	f.record("CreateScope " + spec.Name)
	return f.Fleet.CreateScope(ctx, spec)
}

func (f *testFleet) CreateVM(ctx context.Context, spec forewarn.VMSpec) (*forewarn.VM, error) {
	f.record("CreateVM " + spec.Name)
	return f.Fleet.CreateVM(ctx, spec)
}

func (f *testFleet) DeleteScope(ctx context.Context, name string) error {
	f.record("DeleteScope " + name)
	return f.Fleet.DeleteScope(ctx, name)
}

func (f *testFleet) DeleteVM(ctx context.Context, name string) error {
	f.record("DeleteVM " + name)
	return f.Fleet.DeleteVM(ctx, name)
}

// names lists the names of the fleet's scopes or VMs, sorted.
func (f *testFleet) names(tb testing.TB, kind string) []string {
	tb.Helper()
	ctx := context.Background()
	var out []string
	if kind == KindScope {
		scopes, err := f.Scopes(ctx)
		if err != nil {
			tb.Fatal(err)
		}
		for _, s := range scopes {
			out = append(out, s.Name)
		}
	} else {
		vms, _, err := f.VMs(ctx, forewarn.VMQuery{})
		if err != nil {
			tb.Fatal(err)
		}
		for _, vm := range vms {
			out = append(out, vm.Name)
		}
	}
	slices.SortFunc(out, forewarn.CompareNames)
	return out
}

// testStore is the store of a testFleet. A transaction that writes more
// than maxWrites scopes and VMs (if set) it refuses as too large, as etcd
// refuses one past its --max-txn-ops, and counts in tooLarge; the write of
// the VM named failVM fails.
type testStore struct {
	forewarn.Store
	maxWrites int
	failVM    string
	tooLarge  atomic.Int64
}

func (s *testStore) Update(ctx context.Context, fn func(forewarn.Tx) error) error {
	return s.Store.Update(ctx, func(tx forewarn.Tx) error {
		w := &writes{Tx: tx, failVM: s.failVM}
		if err := fn(w); err != nil {
			return err
		}
		if s.maxWrites > 0 && w.n > s.maxWrites {
			s.tooLarge.Add(1)
			return fmt.Errorf("%d writes of scopes and VMs: %w", w.n, forewarn.ErrTooLarge)
		}
		return nil
	})
}

// writes is a transaction of a testStore: it counts the writes of scopes
// and VMs and fails that of failVM.
type writes struct {
	forewarn.Tx
	failVM string
	n      int
}

func (t *writes) PutScope(s *forewarn.Scope) error {
	t.n++
	return t.Tx.PutScope(s)
}

func (t *writes) PutVM(vm *forewarn.VM) error {
	if t.failVM != "" && forewarn.SameName(vm.Name, t.failVM) {
		return fmt.Errorf("the store failed to write vm %s", vm.Name)
	}
	t.n++
	return t.Tx.PutVM(vm)
}
