package fabric

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// TestReadCacheMatchesTheStore runs generated sequences of writes of VMs
// and events in one transaction and checks, after each, that what the
// read cache returns (VMs, Events, isLive) is what the store itself
// returns.
func TestReadCacheMatchesTheStore(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			h := mustOpenHarness(t, Config{AlwaysEnabled: true})
			for _, s := range []string{"web", "DB"} {
				h.scope(forewarn.ScopeSpec{Name: s, UpdateDomains: 2})
			}
			rng := rand.New(rand.NewPCG(seed, 1))
			err := h.store.Update(h.ctx, func(tx forewarn.Tx) error {
				tr := newReadCache(tx)
				for step := range 60 {
					scope := []string{"web", "db", "Web", "DB"}[rng.IntN(4)]
					name := fmt.Sprintf("%s-%d", []string{"a", "B", "c"}[rng.IntN(3)], rng.IntN(4))
					id := fmt.Sprintf("e%d", rng.IntN(6))
					var what string
					var err error
					switch rng.IntN(6) {
					case 0, 1:
						what = "read"
						_, err1 := tr.VMs(scope)
						_, err2 := tr.Events(scope)
						_, err3 := tr.isLive(id)
						err = firstErr(err1, err2, err3)
					case 2:
						what = "put vm " + name
						vm, getErr := tr.VM(name)
						if getErr != nil {
							vm = &forewarn.VM{Name: name, Scope: scope}
						}
						vm.State = forewarn.VMState(fmt.Sprint(step))
						err = tr.PutVM(vm)
					case 3:
						what = "delete vm " + name
						if _, getErr := tr.VM(name); getErr == nil {
							err = tr.DeleteVM(name)
						}
					case 4:
						what = "put event " + id
						e, getErr := tr.Event(id)
						if getErr != nil {
							e = &forewarn.Event{ID: id, Scope: scope, CreatedAt: t0.Add(time.Duration(rng.IntN(3)) * time.Second)}
						}
						e.Resources = append(e.Resources, name)
						err = tr.PutEvent(e)
					case 5:
						what = "delete event " + id
						if _, getErr := tr.Event(id); getErr == nil {
							err = tr.DeleteEvent(id)
						}
					}
					if err != nil {
						return fmt.Errorf("step %d (%s): %w", step, what, err)
					}
					for _, s := range []string{"web", "db"} {
						cachedVMs, _ := tr.VMs(s)
						storedVMs, _ := tx.VMs(s)
						if !same(cachedVMs, storedVMs) {
							t.Fatalf("step %d (%s): VMs(%s) = %v, the store has %v", step, what, s, vmNames(cachedVMs), vmNames(storedVMs))
						}
						cachedEvents, _ := tr.Events(s)
						storedEvents, _ := tx.Events(s)
						if !same(cachedEvents, storedEvents) {
							t.Fatalf("step %d (%s): Events(%s) = %v, the store has %v", step, what, s, eventIDs(cachedEvents), eventIDs(storedEvents))
						}
					}
					_, stored := tx.Event(id)
					if live, _ := tr.isLive(id); live != (stored == nil) {
						t.Fatalf("step %d (%s): isLive(%s) = %v, the store has it: %v", step, what, id, live, stored == nil)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// same reports whether two lists are equal, nil and empty alike.
func same[T any](a, b []T) bool {
	return (len(a) == 0 && len(b) == 0) || reflect.DeepEqual(a, b)
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func vmNames(vms []*forewarn.VM) []string {
	var out []string
	for _, vm := range vms {
		out = append(out, vm.Name+":"+string(vm.State))
	}
	return out
}

func eventIDs(events []*forewarn.Event) []string {
	var out []string
	for _, e := range events {
		out = append(out, fmt.Sprint(e.ID, e.Resources))
	}
	return out
}
