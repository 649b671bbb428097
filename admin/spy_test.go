package admin_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/internal/fabrictest"
	"github.com/forewarn/forewarn/memstore"
)

// spiedFabric returns the real control plane with cfg over a new in-memory
// store that spies on it, counting from zero once the fabric has started.
func spiedFabric(tb testing.TB, cfg fabric.Config) (*fabric.Fabric, *spyStore) {
	tb.Helper()
	store := &spyStore{Store: memstore.New()}
	tb.Cleanup(func() { store.Close() })
	cfg.Store = store
	f := fabrictest.New(tb, cfg)
	store.reset()
	return f, store
}

// spyStore is the store under a test's fabric. It counts the transactions
// (a call of the fleet that reads or writes makes at least one) and those
// that commit (the changes), and once err is set fails them all with it,
// as a broken disk or an etcd out of reach would.
type spyStore struct {
	forewarn.Store
	mu                    sync.Mutex
	transactions, commits int
	err                   error
}

func (s *spyStore) View(ctx context.Context, fn func(forewarn.Tx) error) error {
	if err := s.begin(); err != nil {
		return err
	}
	return s.Store.View(ctx, fn)
}

func (s *spyStore) Update(ctx context.Context, fn func(forewarn.Tx) error) error {
	if err := s.begin(); err != nil {
		return err
	}
	err := s.Store.Update(ctx, fn)
	if err == nil {
		s.mu.Lock()
		s.commits++
		s.mu.Unlock()
	}
	return err
}

// begin counts a transaction and returns the error it must fail with.
func (s *spyStore) begin() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.transactions++
	return s.err
}

// counts returns the transactions and the commits so far.
func (s *spyStore) counts() (transactions, commits int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.transactions, s.commits
}

// changes returns the commits so far.
func (s *spyStore) changes() int {
	_, commits := s.counts()
	return commits
}

// fail makes every later transaction fail with err.
func (s *spyStore) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
}

// reset counts from zero.
func (s *spyStore) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.transactions, s.commits = 0, 0
}

// spyFleet is the fleet as a test's API server sees it: the real one, with
// a spy on the methods that take what the API parses from a request, a
// body (CreateScope, CreateVM, Degrade, Resolve, StartCampaign, AddChaos)
// or a query (VMs, Events). It counts their calls and records the queries;
// once err is set, those calls fail with it and change nothing.
type spyFleet struct {
	forewarn.Fleet
	mu           sync.Mutex
	n            int
	err          error
	vmQueries    []forewarn.VMQuery
	eventQueries []forewarn.EventQuery
}

// call counts a call and returns the error it must fail with.
func (f *spyFleet) call() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	return f.err
}

// calls returns the calls of the spied methods so far.
func (f *spyFleet) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// fail makes the later calls of the spied methods fail with err.
func (f *spyFleet) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

// queries returns the queries of the listings so far, in order.
func (f *spyFleet) queries() ([]forewarn.VMQuery, []forewarn.EventQuery) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.vmQueries), slices.Clone(f.eventQueries)
}

func (f *spyFleet) CreateScope(ctx context.Context, spec forewarn.ScopeSpec) (*forewarn.Scope, error) {
	if err := f.call(); err != nil {
		return nil, err
	}
	return f.Fleet.CreateScope(ctx, spec)
}

func (f *spyFleet) CreateVM(ctx context.Context, spec forewarn.VMSpec) (*forewarn.VM, error) {
	if err := f.call(); err != nil {
		return nil, err
	}
	return f.Fleet.CreateVM(ctx, spec)
}

func (f *spyFleet) Degrade(ctx context.Context, vm string, notice time.Duration) (*forewarn.Event, error) {
	if err := f.call(); err != nil {
		return nil, err
	}
	return f.Fleet.Degrade(ctx, vm, notice)
}

func (f *spyFleet) Resolve(ctx context.Context, id string, r forewarn.Resolution) (*forewarn.Event, error) {
	if err := f.call(); err != nil {
		return nil, err
	}
	return f.Fleet.Resolve(ctx, id, r)
}

func (f *spyFleet) StartCampaign(ctx context.Context, spec forewarn.CampaignSpec) (*forewarn.Campaign, error) {
	if err := f.call(); err != nil {
		return nil, err
	}
	return f.Fleet.StartCampaign(ctx, spec)
}

func (f *spyFleet) AddChaos(ctx context.Context, spec forewarn.ChaosSpec) (*forewarn.ChaosRule, error) {
	if err := f.call(); err != nil {
		return nil, err
	}
	return f.Fleet.AddChaos(ctx, spec)
}

func (f *spyFleet) VMs(ctx context.Context, q forewarn.VMQuery) ([]*forewarn.VM, string, error) {
	f.mu.Lock()
	f.vmQueries = append(f.vmQueries, q)
	f.mu.Unlock()
	if err := f.call(); err != nil {
		return nil, "", err
	}
	return f.Fleet.VMs(ctx, q)
}

func (f *spyFleet) Events(ctx context.Context, q forewarn.EventQuery) ([]*forewarn.Event, string, error) {
	f.mu.Lock()
	f.eventQueries = append(f.eventQueries, q)
	f.mu.Unlock()
	if err := f.call(); err != nil {
		return nil, "", err
	}
	return f.Fleet.Events(ctx, q)
}
