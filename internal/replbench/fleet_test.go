package replbench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/forewarn/forewarn"
)

// workers is the number of clients that write at once, spread evenly over
// the replicas.
const workers = 8

// vmsPerScope is the size of each availability set of the benchmarks'
// fleet.
const vmsPerScope = 4

// defaultScopes is the number of scopes of the benchmarks' fleet, unless
// $REPLBENCH_SCOPES says otherwise: 32 VMs, with at most 32 events in
// flight. The etcd store cannot go much further: every write reads every
// VM and every event in flight of the fleet, and etcd (at its default
// --max-txn-ops of 128) refuses the commit of a transaction that read more
// than about 125 keys, so writes fail once VMs and events add up to about
// 120.
const defaultScopes = 8

// fleet is the VMs the benchmarks work on: availability sets of the same
// size, each VM with its own loopback address. Worker w owns the
// scopes s with s % workers == w, and writes through replica w % replicas:
// each replica has its own scopes, as when operators on different hosts
// look after different parts of the fleet.
type fleet struct {
	scopes []string
	vms    []vmSpec
	owned  [workers][]int // the VMs of each worker, by index in vms
}

// vmSpec is one VM of the fleet.
type vmSpec struct {
	name, scope, addr string
}

// newFleet lays out a fleet of n scopes of perScope VMs; n must be a
// multiple of workers.
func newFleet(tb testing.TB, n, perScope int) *fleet {
	tb.Helper()
	if n <= 0 || n%workers != 0 {
		tb.Fatalf("a fleet of %d scopes: want a positive multiple of %d", n, workers)
	}
	f := &fleet{}
	for s := range n {
		scope := fmt.Sprintf("set-%02d", s)
		f.scopes = append(f.scopes, scope)
		for v := range perScope {
			i := len(f.vms)
			f.vms = append(f.vms, vmSpec{
				name:  fmt.Sprintf("%s-vm-%d", scope, v),
				scope: scope,
				addr:  fmt.Sprintf("127.77.%d.%d", i/250, i%250+1),
			})
			f.owned[s%workers] = append(f.owned[s%workers], i)
		}
	}
	return f
}

// scopesFromEnv is $REPLBENCH_SCOPES, or defaultScopes.
func scopesFromEnv(tb testing.TB) int {
	tb.Helper()
	v := os.Getenv("REPLBENCH_SCOPES")
	if v == "" {
		return defaultScopes
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		tb.Fatalf("REPLBENCH_SCOPES=%q: %v", v, err)
	}
	return n
}

// size is the number of VMs.
func (f *fleet) size() int { return len(f.vms) }

// job returns the VM of the j-th operation of a round, 0 <= j < size():
// operations go to the workers in turn, each taking its own VMs in order.
func (f *fleet) job(j int) (worker, vm int) {
	worker = j % workers
	return worker, f.owned[worker][j/workers]
}

// create creates the scopes and VMs through fab.
func (f *fleet) create(ctx context.Context, fab forewarn.Fleet) error {
	for _, s := range f.scopes {
		if _, err := fab.CreateScope(ctx, forewarn.ScopeSpec{Name: s}); err != nil {
			return err
		}
	}
	for i := range f.vms {
		if err := f.createVM(ctx, fab, i); err != nil {
			return err
		}
	}
	return nil
}

// createVM creates VM i through fab.
func (f *fleet) createVM(ctx context.Context, fab forewarn.Fleet, i int) error {
	vm := f.vms[i]
	_, err := fab.CreateVM(ctx, forewarn.VMSpec{Name: vm.name, Scope: vm.scope, Addresses: []string{vm.addr}})
	return err
}

// eachWorker runs fn for every worker at once, with the replica it writes
// through, and joins their errors.
func eachWorker(replicas []*replica, fn func(w int, r *replica) error) error {
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { errs[w] = fn(w, replicas[w%len(replicas)]) })
	}
	wg.Wait()
	return errors.Join(errs...)
}
