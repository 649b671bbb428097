package admin_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/fabric"
)

// failDescription is the description of a hardware failure (SPEC.md 10).
const failDescription = "Host server is undergoing an emergency repair."

// failingActuator fails every run, as on a host that does not come back.
type failingActuator struct{}

func (failingActuator) Name() string { return "failing" }

func (failingActuator) Actuate(context.Context, *forewarn.Event, *forewarn.VM) error {
	return errors.New("the host did not come back")
}

// failActuation runs the actuator on the started event id, which fails
// with a failingActuator, and waits until the event says so.
func (env *testEnv) failActuation(t *testing.T, id string) {
	t.Helper()
	if _, err := env.fab.Tick(t.Context()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for e := must(env.fab.Event(t.Context(), id))(t); len(e.Failed) == 0 || env.fab.RunsUnderWay() > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("the actuation of %s did not fail within five seconds: %+v", id, e)
		}
		time.Sleep(5 * time.Millisecond) // the actuator runs in its own goroutine
		e = must(env.fab.Event(t.Context(), id))(t)
	}
}

func TestRoundTripHardware(t *testing.T) {
	env := mustStartWith(t, testToken, fabric.Config{AlwaysEnabled: true, Actuator: failingActuator{}})
	ctx, c, f := t.Context(), env.client, env.fab
	must(c.CreateScope(ctx, forewarn.ScopeSpec{Name: "web"}))(t)
	for i := range 3 {
		must(c.CreateVM(ctx, forewarn.VMSpec{Name: fmt.Sprintf("web-%d", i), Scope: "web"}))(t)
	}

	failed := must(c.Fail(ctx, "web-0"))(t)
	same(t, "Fail", failed, must(f.Event(ctx, failed.ID))(t))
	if failed.Type != forewarn.Reboot || failed.Status != forewarn.Started || failed.Source != forewarn.Platform ||
		failed.Operation != forewarn.OpFail || !failed.NotBefore.IsZero() || failed.Description != failDescription {
		t.Errorf("Fail: event %+v", failed)
	}

	env.toWholeSecond()
	for vm, notice := range map[string]time.Duration{"web-1": 0, "web-2": 36 * time.Hour} {
		e := must(c.Degrade(ctx, vm, notice))(t)
		same(t, "Degrade "+vm, e, must(f.Event(ctx, e.ID))(t))
		want := notice
		if want == 0 {
			want = forewarn.DefaultDegradeNotice
		}
		if got := e.NotBefore.Sub(e.CreatedAt); got != want || e.Type != forewarn.Redeploy ||
			e.Operation != forewarn.OpDegrade || e.Status != forewarn.Scheduled {
			t.Errorf("Degrade %s with notice %v: notice %v, event %+v", vm, notice, got, e)
		}
	}

	env.failActuation(t, failed.ID)
	retried := must(c.Resolve(ctx, failed.ID, forewarn.Resolution{Action: forewarn.ResolveRetry}))(t)
	same(t, "Resolve retry", retried, must(f.Event(ctx, failed.ID))(t))
	if len(retried.Failed) != 0 || !retried.InFlight() {
		t.Errorf("Resolve retry: event %+v", retried)
	}
	env.failActuation(t, failed.ID)
	completed := must(c.Resolve(ctx, failed.ID, forewarn.Resolution{Action: forewarn.ResolveComplete}))(t)
	same(t, "Resolve complete", completed, must(f.History(ctx, 1))(t)[0])
	if completed.Outcome != forewarn.Completed || completed.EndedAt.IsZero() {
		t.Errorf("Resolve complete: event %+v", completed)
	}
	if _, err := c.Resolve(ctx, failed.ID, forewarn.Resolution{Action: forewarn.ResolveComplete}); !errors.Is(err, forewarn.ErrNotFound) {
		t.Errorf("Resolve of a finished event: %v, want ErrNotFound", err)
	}
}

func TestRoundTripCampaigns(t *testing.T) {
	env := mustStart(t)
	ctx, c, f := t.Context(), env.client, env.fab
	must(c.CreateScope(ctx, forewarn.ScopeSpec{Name: "web"}))(t)
	must(c.CreateScope(ctx, forewarn.ScopeSpec{Name: "db", UpdateDomains: 3}))(t)
	for _, scope := range []string{"web", "db"} { // a campaign walks the update domains that have VMs
		must(c.CreateVM(ctx, forewarn.VMSpec{Name: scope + "-0", Scope: scope}))(t)
	}
	env.enable(t, "web")

	spec := forewarn.CampaignSpec{
		Type: forewarn.Reboot, Scopes: []string{"web", "db"}, Notice: forewarn.Duration(30 * time.Minute),
		Description: "Host OS rollout.", ParallelScopes: 2,
	}
	reboot := must(c.StartCampaign(ctx, spec))(t)
	same(t, "StartCampaign", reboot, must(f.Campaign(ctx, reboot.ID))(t))
	wantScopes := []forewarn.ScopeProgress{
		{Scope: "web", UpdateDomains: 5}, {Scope: "db", UpdateDomains: 3, NoNotice: true},
	}
	if !reflect.DeepEqual(reboot.Spec, spec) || !reflect.DeepEqual(walked(reboot), wantScopes) ||
		reboot.State != forewarn.CampaignRunning || reboot.EstimatedEnd.IsZero() {
		t.Errorf("StartCampaign: %s", mustJSON(t, reboot))
	}
	env.clock.Advance(time.Second) // campaigns list newest first, by when they started
	freeze := must(c.StartCampaign(ctx, forewarn.CampaignSpec{
		Type: forewarn.Freeze, All: true, Duration: forewarn.Duration(9 * time.Second),
	}))(t)
	if freeze.DurationInSeconds != 9 || !freeze.Spec.All || len(freeze.Scopes) != 2 {
		t.Errorf("StartCampaign all: %s", mustJSON(t, freeze))
	}

	list := must(c.Campaigns(ctx))(t)
	same(t, "Campaigns", list, must(f.Campaigns(ctx))(t))
	if len(list) != 2 || list[0].ID != freeze.ID {
		t.Errorf("Campaigns: %s, want the newest first", mustJSON(t, list))
	}
	same(t, "Campaign", must(c.Campaign(ctx, reboot.ID))(t), must(f.Campaign(ctx, reboot.ID))(t))

	for _, step := range []struct {
		action forewarn.CampaignAction
		state  forewarn.CampaignState
	}{
		{forewarn.PauseCampaign, forewarn.CampaignPaused},
		{forewarn.ResumeCampaign, forewarn.CampaignRunning},
		{forewarn.CancelCampaign, forewarn.CampaignCancelled},
	} {
		got := must(c.SteerCampaign(ctx, reboot.ID, step.action))(t)
		same(t, "SteerCampaign "+string(step.action), got, must(f.Campaign(ctx, reboot.ID))(t))
		if got.State != step.state {
			t.Errorf("SteerCampaign %s: state %s, want %s", step.action, got.State, step.state)
		}
	}
	if got := must(c.Campaign(ctx, reboot.ID))(t); got.EndedAt.IsZero() || !got.EstimatedEnd.IsZero() {
		t.Errorf("cancelled campaign: %s", mustJSON(t, got))
	}
	if _, err := c.SteerCampaign(ctx, reboot.ID, forewarn.ResumeCampaign); !errors.Is(err, forewarn.ErrConflict) {
		t.Errorf("resume of a cancelled campaign: %v, want ErrConflict", err)
	}
	if _, err := c.Campaign(ctx, "CMP-9999"); !errors.Is(err, forewarn.ErrNotFound) {
		t.Errorf("Campaign of an unknown id: %v, want ErrNotFound", err)
	}
	if _, err := c.StartCampaign(ctx, forewarn.CampaignSpec{Type: forewarn.Preempt, All: true}); !errors.Is(err, forewarn.ErrInvalid) {
		t.Errorf("StartCampaign of Preempt: %v, want the fleet's ErrInvalid", err)
	}
}

// walked returns the scopes a campaign walks, with their update domains and
// whether they get notice, but not how far it has gone.
func walked(c *forewarn.Campaign) []forewarn.ScopeProgress {
	out := make([]forewarn.ScopeProgress, len(c.Scopes))
	for i, p := range c.Scopes {
		out[i] = forewarn.ScopeProgress{Scope: p.Scope, UpdateDomains: p.UpdateDomains, NoNotice: p.NoNotice}
	}
	return out
}

func TestRoundTripChaos(t *testing.T) {
	env := mustStart(t)
	ctx, c, f := t.Context(), env.client, env.fab
	must(c.CreateScope(ctx, forewarn.ScopeSpec{Name: "web"}))(t)
	must(c.CreateVM(ctx, forewarn.VMSpec{Name: "web-0", Scope: "web"}))(t)

	specs := []forewarn.ChaosSpec{
		{Scope: "web", Status: 500, Fraction: 0.3, For: forewarn.Duration(10 * time.Minute)},
		{VM: "web-0", Delay: forewarn.Duration(2500 * time.Millisecond), Fraction: 1, For: forewarn.Duration(time.Hour)},
	}
	var rules []*forewarn.ChaosRule
	for _, spec := range specs {
		r := must(c.AddChaos(ctx, spec))(t)
		if r.ID == "" || r.ChaosSpec != spec || r.Until.Sub(r.CreatedAt) != time.Duration(spec.For) {
			t.Errorf("AddChaos %+v: rule %s", spec, mustJSON(t, r))
		}
		rules = append(rules, r)
	}
	same(t, "Chaos", must(c.Chaos(ctx))(t), must(f.Chaos(ctx))(t))
	same(t, "AddChaos", rules, must(f.Chaos(ctx))(t))

	if err := c.DeleteChaos(ctx, rules[0].ID); err != nil {
		t.Fatal(err)
	}
	same(t, "Chaos after DeleteChaos", must(c.Chaos(ctx))(t), rules[1:])
	if err := c.DeleteChaos(ctx, rules[0].ID); !errors.Is(err, forewarn.ErrNotFound) {
		t.Errorf("DeleteChaos twice: %v, want ErrNotFound", err)
	}
	_, err := c.AddChaos(ctx, forewarn.ChaosSpec{Status: 404, Fraction: 1, For: forewarn.Duration(time.Minute)})
	var fe *forewarn.Error
	if !errors.Is(err, forewarn.ErrInvalid) || !errors.As(err, &fe) || fe.Message != "invalid status 404: want 410, 429 or 500" {
		t.Errorf("AddChaos with status 404: %v, want the fleet's ErrInvalid", err)
	}
}

// TestWireMaintenance checks the statuses, headers and field names of the
// routes of maintenance and chaos on the wire.
func TestWireMaintenance(t *testing.T) {
	env := mustStart(t)
	env.runSteps(t, []wireStep{
		{"POST", "/v1/scopes", `{"name":"web"}`, 201, ``, ""},
		{"POST", "/v1/vms", `{"name":"web-0","scope":"web"}`, 201, ``, ""},
		{"POST", "/v1/vms", `{"name":"web-1","scope":"web"}`, 201, ``, ""},
		{"POST", "/v1/vms/web-0/fail", "", 201, `"status":"Started"`, "fail"},
		{"POST", "/v1/vms/web-1/degrade", `{"notice":"2d"}`, 201, `"operation":"degrade"`, "degrade"},
		{"POST", "/v1/vms/web-1/degrade", ``, 409, `already has event {degrade}`, ""},
		{"POST", "/v1/events/{fail}/resolve", `{"action":"retry"}`, 409, `has no failed VM to retry`, ""},
		{"POST", "/v1/campaigns", `{"type":"Reboot","scopes":["web"],"notice":"1h"}`, 201, `"notice":"1h0m0s"`, "campaign"},
		{"GET", "/v1/campaigns", "", 200, `"id":"{campaign}"`, ""},
		{"GET", "/v1/campaigns/{campaign}", "", 200, `"scopes":[{"scope":"web","updateDomains":5,"done":0,"waiting":"vm web-0 has event {fail} (Reboot) in flight","noNotice":true}]`, ""},
		{"POST", "/v1/campaigns/{campaign}/pause", "", 200, `"state":"paused"`, ""},
		{"POST", "/v1/campaigns/{campaign}/resume", "{}", 200, `"state":"running"`, ""},
		{"POST", "/v1/campaigns/{campaign}/cancel", "", 200, `"state":"cancelled"`, ""},
		{"POST", "/v1/campaigns/cmp-0002/pause", "", 404, `campaign \"cmp-0002\" not found`, ""},
		{"POST", "/v1/chaos", `{"scope":"web","status":410,"fraction":0.5,"for":"1h"}`, 201, `"id":"`, "chaos"},
		{"GET", "/v1/chaos", "", 200, `"scope":"web","status":410,"fraction":0.5,"for":"1h0m0s"`, ""},
		{"DELETE", "/v1/chaos/{chaos}", "", 204, ``, ""},
		{"DELETE", "/v1/chaos/{chaos}", "", 404, `not found`, ""},
		{"GET", "/v1/chaos", "", 200, `[]`, ""},
	})
	a := env.request(t, "POST", "/v1/vms/web-1/fail", testToken, "")
	if loc := a.header.Get("Location"); a.status != 201 || loc != "/v1/events/"+idOf(t, a) {
		t.Errorf("fail: %d, Location %q; want 201 /v1/events/ and the event's id", a.status, loc)
	}
	a = env.request(t, "POST", "/v1/campaigns", testToken, `{"type":"Freeze","all":true}`)
	if loc := a.header.Get("Location"); a.status != 201 || loc != "/v1/campaigns/"+idOf(t, a) {
		t.Errorf("start campaign: %d, Location %q; want 201 /v1/campaigns/ and the campaign's id", a.status, loc)
	}
	metrics := env.request(t, "GET", "/metrics", "", "").body
	for _, want := range []string{
		`forewarn_admin_requests_total{code="200",route="POST /v1/campaigns/{id}/pause"} 1`,
		`forewarn_admin_requests_total{code="404",route="POST /v1/campaigns/{id}/pause"} 1`,
		`forewarn_admin_requests_total{code="204",route="DELETE /v1/chaos/{id}"} 1`,
		`forewarn_admin_requests_total{code="409",route="POST /v1/events/{id}/resolve"} 1`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// TestDegradeNotice checks what reaches the fleet from the body of degrade:
// no body, an empty object and a notice in days.
func TestDegradeNotice(t *testing.T) {
	for body, want := range map[string]time.Duration{
		``: forewarn.DefaultDegradeNotice, `{}`: forewarn.DefaultDegradeNotice,
		`{"notice":"0s"}`: forewarn.DefaultDegradeNotice, `{"notice":"1d12h"}`: 36 * time.Hour,
	} {
		env := mustStartEnabled(t) // a degraded VM gets notice
		env.toWholeSecond()
		env.request(t, "POST", "/v1/vms", testToken, `{"name":"web-0"}`)
		a := env.request(t, "POST", "/v1/vms/web-0/degrade", testToken, body)
		e := must(env.fab.Event(t.Context(), idOf(t, a)))(t)
		if a.status != 201 || e.NotBefore.Sub(e.CreatedAt) != want {
			t.Errorf("degrade with body %q: %d, notice %v; want 201 and %v", body, a.status, e.NotBefore.Sub(e.CreatedAt), want)
		}
	}
}

// TestClientRefusesBadMaintenanceInput checks names and actions the client
// refuses before it sends anything.
func TestClientRefusesBadMaintenanceInput(t *testing.T) {
	env := mustStart(t)
	ctx, c := t.Context(), env.client
	calls := []struct {
		name string
		call func() error
	}{
		{"Fail empty", func() error { _, err := c.Fail(ctx, ""); return err }},
		{"Degrade ..", func() error { _, err := c.Degrade(ctx, "..", 0); return err }},
		{"Degrade negative", func() error { _, err := c.Degrade(ctx, "web-0", -time.Hour); return err }},
		{"Resolve empty id", func() error {
			_, err := c.Resolve(ctx, "", forewarn.Resolution{Action: forewarn.ResolveRetry})
			return err
		}},
		{"Resolve no action", func() error { _, err := c.Resolve(ctx, "EVT-0001", forewarn.Resolution{}); return err }},
		{"Resolve bad action", func() error { _, err := c.Resolve(ctx, "EVT-0001", forewarn.Resolution{Action: "finish"}); return err }},
		{"Campaign .", func() error { _, err := c.Campaign(ctx, "."); return err }},
		{"SteerCampaign empty id", func() error { _, err := c.SteerCampaign(ctx, "", forewarn.PauseCampaign); return err }},
		{"SteerCampaign bad action", func() error { _, err := c.SteerCampaign(ctx, "CMP-0001", "stop"); return err }},
		{"DeleteChaos empty", func() error { return c.DeleteChaos(ctx, "") }},
	}
	for _, tc := range calls {
		if err := tc.call(); !errors.Is(err, forewarn.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", tc.name, err)
		}
	}
	_, err := c.SteerCampaign(ctx, "CMP-0001", "stop")
	if err == nil || err.Error() != `unknown campaign action "stop": use pause, resume or cancel` {
		t.Errorf("SteerCampaign stop: %v", err)
	}
	if n := env.requests.Load(); n != 0 {
		t.Errorf("the client sent %d requests", n)
	}
}

// TestNewMethodsReachTheFleet checks that every new client method reaches
// the fleet method of its route, and brings back the fleet's error.
func TestNewMethodsReachTheFleet(t *testing.T) {
	env := mustStart(t)
	ctx, c := t.Context(), env.client
	env.store.fail(forewarn.Errorf(forewarn.ErrConflict, "the fleet says no"))
	calls := map[string]func() error{
		"Fail":    func() error { _, err := c.Fail(ctx, "web-0"); return err },
		"Degrade": func() error { _, err := c.Degrade(ctx, "web-0", time.Hour); return err },
		"Resolve": func() error {
			_, err := c.Resolve(ctx, "EVT-0001", forewarn.Resolution{Action: forewarn.ResolveComplete})
			return err
		},
		"StartCampaign": func() error {
			_, err := c.StartCampaign(ctx, forewarn.CampaignSpec{Type: forewarn.Reboot, All: true})
			return err
		},
		"Campaigns":     func() error { _, err := c.Campaigns(ctx); return err },
		"Campaign":      func() error { _, err := c.Campaign(ctx, "CMP-0001"); return err },
		"SteerCampaign": func() error { _, err := c.SteerCampaign(ctx, "CMP-0001", forewarn.CancelCampaign); return err },
		"AddChaos": func() error {
			_, err := c.AddChaos(ctx, forewarn.ChaosSpec{Status: 500, Fraction: 1, For: forewarn.Duration(time.Minute)})
			return err
		},
		"Chaos":       func() error { _, err := c.Chaos(ctx); return err },
		"DeleteChaos": func() error { return c.DeleteChaos(ctx, "CHAOS-0001") },
	}
	for name, call := range calls {
		before, _ := env.store.counts()
		err := call()
		var fe *forewarn.Error
		if !errors.Is(err, forewarn.ErrConflict) || !errors.As(err, &fe) || fe.Message != "the fleet says no" {
			t.Errorf("%s: %v, want the fleet's ErrConflict", name, err)
		}
		if after, _ := env.store.counts(); after != before+1 {
			t.Errorf("%s: the fleet made %d transactions, want 1", name, after-before)
		}
	}
}
