package admin_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// same fails the test unless got, which came through the API, equals want,
// which came from the fleet directly.
func same(tb testing.TB, what string, got, want any) {
	tb.Helper()
	if !reflect.DeepEqual(got, want) {
		tb.Errorf("%s through the API:\n got %s\nwant %s", what, mustJSON(tb, got), mustJSON(tb, want))
	}
}

// must returns v, or fails the test with err: must(f())(t).
func must[T any](v T, err error) func(testing.TB) T {
	return func(tb testing.TB) T {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
		return v
	}
}

// whole returns the items of a listing that must be whole, or fails the
// test with its error or a next page: whole(c.VMs(ctx, q))(t).
func whole[T any](items []T, next string, err error) func(testing.TB) []T {
	return func(tb testing.TB) []T {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
		if next != "" {
			tb.Fatalf("listing has a next page after %q, want none", next)
		}
		return items
	}
}

func intPtr(n int) *int { return &n }

func TestRoundTripScopes(t *testing.T) {
	env := mustStart(t)
	ctx, c, f := t.Context(), env.client, env.fab

	got := must(c.CreateScope(ctx, forewarn.ScopeSpec{
		Name: "web", Kind: forewarn.ScaleSet, UpdateDomains: 4, FaultDomains: 2,
		TerminateNotice: forewarn.Duration(7*time.Minute + 30*time.Second),
	}))(t)
	same(t, "CreateScope", got, must(f.Scope(ctx, "web"))(t))
	if got.TerminateNotice != forewarn.Duration(450*time.Second) || got.CreatedAt.Nanosecond() == 0 {
		t.Errorf("scope lost its notice or the precision of its time: %+v", got)
	}
	must(c.CreateScope(ctx, forewarn.ScopeSpec{Name: "db"}))(t)

	same(t, "Scopes", must(c.Scopes(ctx))(t), must(f.Scopes(ctx))(t))
	same(t, "Scope", must(c.Scope(ctx, "WEB"))(t), must(f.Scope(ctx, "web"))(t))

	if err := c.DeleteScope(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Scope(ctx, "db"); !errors.Is(err, forewarn.ErrNotFound) {
		t.Errorf("scope db still there after DeleteScope: %v", err)
	}
}

func TestRoundTripVMs(t *testing.T) {
	env := mustStart(t)
	ctx, c, f := t.Context(), env.client, env.fab
	must(c.CreateScope(ctx, forewarn.ScopeSpec{Name: "web"}))(t)

	got := must(c.CreateVM(ctx, forewarn.VMSpec{
		Name: "web-1", Scope: "web", UpdateDomain: intPtr(3), FaultDomain: intPtr(2),
		Addresses: []string{"10.0.0.5", "fd00::5"}, Priority: forewarn.Spot,
	}))(t)
	same(t, "CreateVM", got, must(f.VM(ctx, "web-1"))(t))
	if got.UpdateDomain != 3 || got.FaultDomain != 2 || len(got.Addresses) != 2 {
		t.Errorf("VM lost its spec: %+v", got)
	}
	must(c.CreateVM(ctx, forewarn.VMSpec{Name: "lonely"}))(t)

	all, web := forewarn.VMQuery{}, forewarn.VMQuery{Scope: "web"}
	same(t, "VMs all", whole(c.VMs(ctx, all))(t), whole(f.VMs(ctx, all))(t))
	same(t, "VMs of web", whole(c.VMs(ctx, web))(t), whole(f.VMs(ctx, web))(t))
	same(t, "VM", must(c.VM(ctx, "web-1"))(t), must(f.VM(ctx, "web-1"))(t))

	if err := c.DeleteVM(ctx, "web-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.VM(ctx, "web-1"); !errors.Is(err, forewarn.ErrNotFound) {
		t.Errorf("VM after DeleteVM: err = %v, want ErrNotFound", err)
	}
}

func TestRoundTripEvents(t *testing.T) {
	env := mustStartEnabled(t) // events get notice
	ctx, c, f := t.Context(), env.client, env.fab
	// A scale set of Spot VMs: the VMs every operation applies to.
	must(c.CreateScope(ctx, forewarn.ScopeSpec{Name: "web", Kind: forewarn.ScaleSet}))(t)
	ids := map[forewarn.Operation]string{}
	for _, op := range []forewarn.Operation{forewarn.OpRestart, forewarn.OpRedeploy, forewarn.OpEvict, forewarn.OpTerminate} {
		vm := "vm-" + string(op)
		must(c.CreateVM(ctx, forewarn.VMSpec{Name: vm, Scope: "web", Priority: forewarn.Spot}))(t)
		e := must(c.Operate(ctx, vm, op))(t)
		same(t, "Operate "+string(op), e, must(f.Event(ctx, e.ID))(t))
		if e.Operation != op || e.NotBefore.IsZero() || e.DurationInSeconds != -1 {
			t.Errorf("Operate %s: event %+v", op, e)
		}
		ids[op] = e.ID
	}

	all, web := forewarn.EventQuery{}, forewarn.EventQuery{Scope: "web"}
	same(t, "Events all", whole(c.Events(ctx, all))(t), whole(f.Events(ctx, all))(t))
	same(t, "Events of web", whole(c.Events(ctx, web))(t), whole(f.Events(ctx, web))(t))
	same(t, "Event", must(c.Event(ctx, ids[forewarn.OpRestart]))(t), must(f.Event(ctx, ids[forewarn.OpRestart]))(t))

	approved := must(c.Approve(ctx, ids[forewarn.OpRestart]))(t)
	same(t, "Approve", approved, must(f.Event(ctx, approved.ID))(t))
	if approved.ApprovedBy != forewarn.ApprovedByAdmin || approved.ApprovedAt.IsZero() || !approved.NotBefore.IsZero() {
		t.Errorf("approved event: %+v", approved)
	}

	cancelled := must(c.Cancel(ctx, ids[forewarn.OpRedeploy]))(t)
	history := must(f.History(ctx, 10))(t)
	same(t, "Cancel", cancelled, history[0])
	if cancelled.Outcome != forewarn.Cancelled || cancelled.EndedAt.IsZero() {
		t.Errorf("cancelled event: %+v", cancelled)
	}
	must(c.Cancel(ctx, ids[forewarn.OpEvict]))(t)
	same(t, "History", must(c.History(ctx, 100))(t), must(f.History(ctx, 100))(t))
	same(t, "History limit 1", must(c.History(ctx, 1))(t), must(f.History(ctx, 1))(t))
}

// TestEmptyListsAreArrays checks that an empty list is [] on the wire, and
// an empty (not nil) slice through the client.
func TestEmptyListsAreArrays(t *testing.T) {
	env := mustStart(t)
	for _, path := range []string{"/v1/scopes", "/v1/vms", "/v1/events", "/v1/history", "/v1/campaigns", "/v1/chaos"} {
		a := env.request(t, "GET", path, testToken, "")
		if a.status != 200 || a.body != "[]\n" || a.header.Get("Content-Type") != "application/json" {
			t.Errorf("GET %s = %d %q (%s), want 200 []", path, a.status, a.body, a.header.Get("Content-Type"))
		}
	}
	events, _, err := env.client.Events(t.Context(), forewarn.EventQuery{})
	if err != nil || events == nil || len(events) != 0 {
		t.Errorf("Events = %#v, %v; want an empty slice", events, err)
	}
	campaigns, err := env.client.Campaigns(t.Context())
	if err != nil || campaigns == nil || len(campaigns) != 0 {
		t.Errorf("Campaigns = %#v, %v; want an empty slice", campaigns, err)
	}
	rules, err := env.client.Chaos(t.Context())
	if err != nil || rules == nil || len(rules) != 0 {
		t.Errorf("Chaos = %#v, %v; want an empty slice", rules, err)
	}
}

// TestWireStatuses checks the statuses, headers and field names on the wire.
func TestWireStatuses(t *testing.T) {
	env := mustStartEnabled(t)
	env.runSteps(t, []wireStep{
		{"POST", "/v1/scopes", `{"name":"web","terminateNotice":"15m"}`, 201, `"terminateNotice":"15m0s"`, ""},
		{"GET", "/v1/scopes/web", "", 200, `"updateDomains":5`, ""},
		{"POST", "/v1/vms", `{"name":"web-0","scope":"web","updateDomain":1,"priority":"Spot"}`, 201, `"vmId":"`, ""},
		{"POST", "/v1/vms/web-0/restart", "", 201, `"operation":"restart"`, "restart"},
		{"GET", "/v1/events?scope=web", "", 200, `"notBefore":"2025-03-14T09:41:54Z"`, ""},
		{"POST", "/v1/events/{restart}/approve", "{}", 200, `"approvedBy":"admin"`, ""},
		{"POST", "/v1/vms/web-0/evict", "", 409, `already has event`, ""},
		{"DELETE", "/v1/vms/web-0", "", 204, ``, ""},
		{"DELETE", "/v1/scopes/web", "", 204, ``, ""},
		{"GET", "/healthz", "", 200, `{"status":"ok"}`, ""},
		{"GET", "/v1/status", "", 200, `"leader":"replica-1","replicas":[{"id":"replica-1"`, ""},
	})
	a := env.request(t, "POST", "/v1/scopes", testToken, `{"name":"db"}`)
	if loc := a.header.Get("Location"); loc != "/v1/scopes/db" {
		t.Errorf("Location = %q, want /v1/scopes/db", loc)
	}
}

// wireStep is one request of a test of the wire, whose answer must have
// the status and contain contains. If keep is set, the id the answer
// gives is kept under that name, for which "{name}" stands in the path
// and in contains of the later steps.
type wireStep struct {
	method, path, body string
	status             int
	contains           string
	keep               string
}

// runSteps sends the steps in order and returns the ids kept.
func (env *testEnv) runSteps(t *testing.T, steps []wireStep) map[string]string {
	t.Helper()
	ids := map[string]string{}
	var kept []string // "{name}", id pairs
	for _, s := range steps {
		r := strings.NewReplacer(kept...)
		path, contains := r.Replace(s.path), r.Replace(s.contains)
		a := env.request(t, s.method, path, testToken, s.body)
		if a.status != s.status || !strings.Contains(a.body, contains) {
			t.Errorf("%s %s = %d %s; want %d containing %s", s.method, path, a.status, a.body, s.status, contains)
		}
		if s.keep == "" {
			continue
		}
		ids[s.keep] = idOf(t, a)
		kept = append(kept, "{"+s.keep+"}", ids[s.keep])
	}
	return ids
}

// TestClientContext checks that the client honours its context.
func TestClientContext(t *testing.T) {
	env := mustStart(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := env.client.Scopes(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Scopes with a cancelled context: %v, want context.Canceled", err)
	}
}
