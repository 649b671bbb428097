package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/imds"
)

// testFleet is a small control plane for the tests: it publishes the
// scopes of a layout to the real metadata endpoint (imds.Server), served
// on loopback, and changes them as the admin API (changer) and the VMs'
// approvals (forewarn.Metadata) ask. Restarts and campaign steps create
// Scheduled events; an approval starts one; complete removes the Started
// ones.
type testFleet struct {
	t      *testing.T
	l      layout
	srv    *imds.Server
	url    string
	addrs  []string
	mu     sync.Mutex
	inc    []int64 // per scope
	events [][]*forewarn.Event
	nextID int
	// approvals counts the approved events; restarted the VMs restarted.
	approvals int
	restarted []string
}

// newTestFleet serves l with the rate limit given (0: none) until the test
// ends.
func newTestFleet(t *testing.T, l layout, rateLimit float64) *testFleet {
	t.Helper()
	f := &testFleet{t: t, l: l, inc: make([]int64, l.scopes), events: make([][]*forewarn.Event, l.scopes)}
	addrs, err := l.addrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		f.addrs = append(f.addrs, a.String())
	}
	f.srv = imds.New(imds.Config{Metadata: f, RateLimit: rateLimit})
	for s := range l.scopes {
		f.inc[s] = 1
		f.publish(s)
	}
	hs := httptest.NewServer(f.srv)
	t.Cleanup(func() {
		f.srv.Shutdown()
		hs.Close()
	})
	f.url = hs.URL
	return f
}

// publish publishes scope s's snapshot. f.mu is held, or the fleet is new.
func (f *testFleet) publish(s int) {
	snap := &forewarn.ScopeSnapshot{
		Scope: &forewarn.Scope{Name: f.l.scopeName(s), Kind: forewarn.AvailabilitySet,
			UpdateDomains: f.l.updateDomains, FaultDomains: 3, Incarnation: f.inc[s], Enabled: true},
		Events: slices.Clone(f.events[s]),
	}
	for i := s * f.l.vms; i < (s+1)*f.l.vms; i++ {
		snap.VMs = append(snap.VMs, &forewarn.VM{Name: f.l.vmName(i), Scope: snap.Scope.Name,
			UpdateDomain: f.l.updateDomain(i), Addresses: []string{f.addrs[i]},
			Priority: forewarn.Regular, State: forewarn.Running})
	}
	f.srv.PublishScope(snap)
}

// change bumps scope s's incarnation and publishes it. f.mu is held.
func (f *testFleet) change(s int) {
	f.inc[s]++
	f.publish(s)
}

// vmIndex is the index of the VM named name, or -1.
func (f *testFleet) vmIndex(name string) int {
	for i := range f.addrs {
		if f.l.vmName(i) == name {
			return i
		}
	}
	return -1
}

// schedule adds a Scheduled Reboot of the VMs named in scope s. f.mu is
// held.
func (f *testFleet) schedule(s int, vms ...string) *forewarn.Event {
	f.nextID++
	ev := &forewarn.Event{ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", f.nextID), Type: forewarn.Reboot,
		Status: forewarn.Scheduled, Scope: f.l.scopeName(s), Resources: vms, Source: forewarn.Platform,
		Description: "Host server is undergoing maintenance.", DurationInSeconds: -1,
		NotBefore: time.Now().Add(15 * time.Minute).Truncate(time.Second)}
	f.events[s] = append(f.events[s], ev)
	f.change(s)
	return ev
}

// Operate restarts a VM: a Scheduled Reboot of it, unless it has an event
// already (ErrConflict).
func (f *testFleet) Operate(_ context.Context, vm string, op forewarn.Operation) (*forewarn.Event, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	i := f.vmIndex(vm)
	if i < 0 || op != forewarn.OpRestart {
		return nil, fmt.Errorf("test fleet: cannot %s %q", op, vm)
	}
	s := i / f.l.vms
	for _, ev := range f.events[s] {
		if slices.Contains(ev.Resources, vm) {
			return nil, &forewarn.Error{Kind: forewarn.ErrConflict, Message: vm + " has an event in flight"}
		}
	}
	f.restarted = append(f.restarted, vm)
	return f.schedule(s, vm), nil
}

// Approve starts the events ids of vm's scope, or refuses them all if one
// is not there.
func (f *testFleet) Approve(_ context.Context, vm string, ids []string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.vmIndex(vm) / f.l.vms
	var found []*forewarn.Event
	for _, id := range ids {
		i := slices.IndexFunc(f.events[s], func(e *forewarn.Event) bool { return e.ID == id })
		if i < 0 {
			return &forewarn.Error{Kind: forewarn.ErrInvalid, Message: "unknown EventId " + id}
		}
		found = append(found, f.events[s][i])
	}
	for _, ev := range found {
		started := *ev
		started.Status, started.NotBefore = forewarn.Started, time.Time{}
		f.events[s][slices.Index(f.events[s], ev)] = &started
		f.approvals++
	}
	f.change(s)
	return nil
}

// Enable is a no-op: every scope is enabled.
func (f *testFleet) Enable(context.Context, string) error { return nil }

// campaign runs until ctx ends, a step every period: in each scope,
// Started events complete, and a scope without events gets a Scheduled one
// for the VMs of its next update domain.
func (f *testFleet) campaign(ctx context.Context, period time.Duration) {
	next := make([]int, f.l.scopes)
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(period):
		}
		f.mu.Lock()
		for s := range f.l.scopes {
			f.step(s, &next[s])
		}
		f.mu.Unlock()
	}
}

// step moves scope s's campaign on; ud is its next update domain. f.mu is
// held.
func (f *testFleet) step(s int, ud *int) {
	kept := slices.DeleteFunc(slices.Clone(f.events[s]), func(e *forewarn.Event) bool { return e.Status == forewarn.Started })
	if len(kept) != len(f.events[s]) {
		f.events[s] = kept
		f.change(s)
	}
	if len(f.events[s]) > 0 {
		return
	}
	var vms []string
	for i := s * f.l.vms; i < (s+1)*f.l.vms; i++ {
		if f.l.updateDomain(i) == *ud {
			vms = append(vms, f.l.vmName(i))
		}
	}
	*ud = (*ud + 1) % f.l.updateDomains
	if len(vms) > 0 {
		f.schedule(s, vms...)
	}
}
