package drill

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/client"
	"github.com/forewarn/forewarn/forewarntest"
)

// The time scale of these tests: a Reboot's 15 minutes of notice take 1.5 s.
const scale = 600

// app is the application of one VM: it polls the metadata endpoint and,
// if it approves, approves the Scheduled events that hit its VM.
type app struct {
	vm      string
	approve bool
}

// drillEnv is a forewarn on a scaled real clock, the fleet of the tests,
// and the applications of its VMs.
type drillEnv struct {
	t   *testing.T
	srv *forewarntest.Server
	out bytes.Buffer
	// interval is the runner's; 20 ms if zero.
	interval time.Duration
}

// newDrillEnv starts a forewarn with scopes web (web-0, web-1, web-2, one
// per update domain) and batch (spot-0, spot-1), and the given apps.
func newDrillEnv(t *testing.T, opts []forewarntest.Option, apps ...app) *drillEnv {
	t.Helper()
	srv := forewarntest.New(t, append([]forewarntest.Option{forewarntest.WithTimeScale(scale)}, opts...)...)
	e := &drillEnv{t: t, srv: srv}
	ctx := t.Context()
	fleet := srv.Fleet()
	scopes := []forewarn.ScopeSpec{{Name: "web", UpdateDomains: 3}, {Name: "batch", Kind: forewarn.ScaleSet}}
	var vms []forewarn.VMSpec
	for _, n := range []string{"web-0", "web-1", "web-2"} {
		vms = append(vms, forewarn.VMSpec{Name: n, Scope: "web"})
	}
	for _, n := range []string{"spot-0", "spot-1"} {
		vms = append(vms, forewarn.VMSpec{Name: n, Scope: "batch", Priority: forewarn.Spot})
	}
	if err := fleet.CreateBatch(ctx, scopes, vms); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	for _, a := range apps {
		wg.Go(func() { e.run(ctx, a) })
	}
	return e
}

// run is one app's loop: a GET every 20 ms, and an approval of the
// Scheduled events that hit its VM.
func (e *drillEnv) run(ctx context.Context, a app) {
	c := client.New(client.WithEndpoint(e.srv.URL), client.WithHTTPClient(e.srv.Client(a.vm)))
	for ctx.Err() == nil {
		doc, err := c.Get(ctx)
		if err == nil && a.approve {
			for _, ev := range doc.Events {
				if ev.EventStatus == "Scheduled" && ev.Hits(a.vm) {
					_ = c.Approve(ctx, ev.EventId)
				}
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// asAdmin does fn to every event of scope web, as the admin, every 10 ms
// until the test ends.
func (e *drillEnv) asAdmin(fn func(forewarn.Fleet, context.Context, string) (*forewarn.Event, error)) {
	ctx := e.t.Context()
	fleet := e.srv.Fleet()
	go func() {
		for ctx.Err() == nil {
			evs, _, _ := fleet.Events(ctx, forewarn.EventQuery{Scope: "web"})
			for _, ev := range evs {
				_, _ = fn(fleet, ctx, ev.ID)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
}

// run runs a drill file's text and returns its report.
func (e *drillEnv) drill(text string) (*Report, error) {
	e.t.Helper()
	return e.drillFor(e.t.Context(), text)
}

// drillFor runs a drill file's text until ctx ends.
func (e *drillEnv) drillFor(ctx context.Context, text string) (*Report, error) {
	e.t.Helper()
	f, err := Parse("d.yaml", []byte(text))
	if err != nil {
		e.t.Fatal(err)
	}
	return e.runner().Run(ctx, f)
}

// runner is a Runner against the server, writing to e.out.
func (e *drillEnv) runner() *Runner {
	fleet := e.srv.Fleet()
	return &Runner{Fleet: fleet, Polls: fleet.(forewarn.PollLog), Out: &e.out, Interval: cmp.Or(e.interval, 20*time.Millisecond)}
}

// mustDrill runs a drill that must run to its end.
func (e *drillEnv) mustDrill(text string) *Report {
	e.t.Helper()
	rep, err := e.drill(text)
	if err != nil {
		e.t.Fatalf("drill: %v\n%s", err, e.out.String())
	}
	return rep
}

// checks returns the step's checks as "PASS name" and "FAIL name: detail".
func checks(s *StepReport) []string {
	var out []string
	for _, c := range s.Checks {
		if c.Passed {
			out = append(out, "PASS "+c.Name)
		} else {
			out = append(out, "FAIL "+c.Name+": "+c.Detail)
		}
	}
	return out
}

// wantChecks checks a step's checks against want, each a prefix.
func wantChecks(t *testing.T, s *StepReport, want ...string) {
	t.Helper()
	got := checks(s)
	if len(got) != len(want) {
		t.Fatalf("checks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("check %d = %q, want it to begin %q", i, got[i], want[i])
		}
	}
}

var allApps = []app{{"web-0", true}, {"web-1", true}, {"web-2", true}, {"spot-0", true}, {"spot-1", true}}

func TestDrillPasses(t *testing.T) {
	e := newDrillEnv(t, nil, allApps...)
	rep := e.mustDrill(`
steps:
  - waitForPolls: [web, batch]
  - restart: web-1
    expect: {approveWithin: 1s, health: "test $FOREWARN_VM = web-1 && test $FOREWARN_EVENT_TYPE = Reboot"}
  - campaign: {type: Freeze, scopes: [web]}
    expect: {approveWithin: 1s}
  - evict: spot-0
    expect: {approveWithin: 1s}
  - wait: 50ms
`)
	if !rep.Passed {
		t.Fatalf("drill failed:\n%s", e.out.String())
	}
	wantChecks(t, rep.Steps[1],
		"PASS Reboot of web-1 is approved by a VM within 1s",
		"PASS Reboot of web-1 does not start unapproved",
		"PASS web-0 (scope web) polls", "PASS web-1 (scope web) polls", "PASS web-2 (scope web) polls",
		"PASS web-1 is healthy after its Reboot")
	if n := len(rep.Steps[2].Events); n != 3 {
		t.Errorf("campaign step: %d events, want one per update domain", n)
	}
	for _, row := range rep.Steps[2].Rows {
		if row.SeenAfter == nil || row.ApprovedAfter == nil || row.Outcome != "approved" {
			t.Errorf("campaign row %+v: want seen and approved by its VM", row)
		}
	}
	wantChecks(t, rep.Steps[3],
		"PASS Preempt of spot-0 is approved by a VM within 1s",
		"PASS Preempt of spot-0 does not start unapproved",
		"PASS spot-0 (scope batch) polls", "PASS spot-1 (scope batch) polls")
	if _, err := e.srv.Fleet().VM(t.Context(), "spot-0"); !errors.Is(err, forewarn.ErrNotFound) {
		t.Errorf("spot-0 after its eviction: %v, want it gone", err)
	}
}

// TestDrillNamesTheVMThatNeverPolls: web-2 has no application.
func TestDrillNamesTheVMThatNeverPolls(t *testing.T) {
	e := newDrillEnv(t, nil, app{"web-0", true}, app{"web-1", true})
	rep := e.mustDrill(`
steps:
  - wait: 200ms
  - restart: web-0
`)
	rep.Steps = rep.Steps[1:]
	wantChecks(t, rep.Steps[0],
		"PASS Reboot of web-0 does not start unapproved",
		"PASS web-0 (scope web) polls", "PASS web-1 (scope web) polls",
		"FAIL web-2 (scope web) polls: never polled while the step ran")
	if rep.Passed || strings.Join(rep.Steps[0].NeverPolled, ",") != "web-2" {
		t.Errorf("passed %v, never polled %v; want a failure naming web-2", rep.Passed, rep.Steps[0].NeverPolled)
	}
}

// TestDrillUnapprovedStart: the applications poll but never approve, so
// the event starts at its NotBefore.
func TestDrillUnapprovedStart(t *testing.T) {
	e := newDrillEnv(t, nil, app{"web-0", false}, app{"web-1", false}, app{"web-2", false})
	rep := e.mustDrill(`
steps:
  - waitForPolls: web
  - redeploy: web-2
    expect: {approveWithin: 100ms}
`)
	rep.Steps = rep.Steps[1:]
	wantChecks(t, rep.Steps[0],
		"FAIL Redeploy of web-2 is approved by a VM within 100ms: event ",
		"FAIL Redeploy of web-2 does not start unapproved: event ",
		"PASS web-0", "PASS web-1", "PASS web-2")
	if c := rep.Steps[0].Checks[1].Detail; !strings.Contains(c, "started unapproved at its NotBefore") {
		t.Errorf("detail %q, want it to say the event started at its NotBefore", c)
	}
	if len(rep.Steps[0].Unapproved) != 1 || rep.Steps[0].Rows[0].Outcome != "started unapproved" {
		t.Errorf("unapproved %v, row %+v", rep.Steps[0].Unapproved, rep.Steps[0].Rows[0])
	}
}

// TestDrillNoNotice: no VM of the scope has polled, so it has not enabled
// Scheduled Events and its event starts at once.
func TestDrillNoNotice(t *testing.T) {
	e := newDrillEnv(t, nil)
	rep := e.mustDrill(`
steps:
  - restart: web-0
    expect: {polled: false}
`)
	wantChecks(t, rep.Steps[0], "FAIL Reboot of web-0 does not start unapproved: event ")
	if c := rep.Steps[0].Checks[0].Detail; !strings.Contains(c, "started at once, with no notice") {
		t.Errorf("detail %q, want it to say the event had no notice", c)
	}
}

// TestDrillHardwareFailure: a failure starts at once by nature; only the
// polls are checked.
func TestDrillHardwareFailure(t *testing.T) {
	e := newDrillEnv(t, []forewarntest.Option{forewarntest.WithDev()}, allApps[:3]...)
	rep := e.mustDrill(`
steps:
  - fail: web-0
`)
	wantChecks(t, rep.Steps[0], "PASS web-0", "PASS web-1", "PASS web-2")
	if row := rep.Steps[0].Rows[0]; row.Outcome != "started at once (hardware failure)" {
		t.Errorf("row %+v", row)
	}
}

// TestDrillAdminApproval: an event the admin approves was not approved by
// a VM in time.
func TestDrillAdminApproval(t *testing.T) {
	e := newDrillEnv(t, []forewarntest.Option{forewarntest.WithDev()}, app{"web-0", false})
	e.asAdmin(forewarn.Fleet.Approve)
	rep := e.mustDrill(`
steps:
  - restart: web-0
    expect: {approveWithin: 1s, polled: false}
`)
	wantChecks(t, rep.Steps[0],
		"FAIL Reboot of web-0 is approved by a VM within 1s: event ",
		"PASS Reboot of web-0 does not start unapproved")
	if !strings.Contains(rep.Steps[0].Checks[0].Detail, "approved by the admin") {
		t.Errorf("detail %q", rep.Steps[0].Checks[0].Detail)
	}
}

// TestDrillCancelledEvent: an event cancelled before it starts fails no
// approval check.
func TestDrillCancelledEvent(t *testing.T) {
	e := newDrillEnv(t, []forewarntest.Option{forewarntest.WithDev()}, app{"web-0", false})
	e.asAdmin(forewarn.Fleet.Cancel)
	rep := e.mustDrill(`
steps:
  - restart: web-0
    expect: {approveWithin: 1s, polled: false}
`)
	wantChecks(t, rep.Steps[0],
		"PASS Reboot of web-0 is approved by a VM within 1s",
		"PASS Reboot of web-0 does not start unapproved")
	if row := rep.Steps[0].Rows[0]; row.Outcome != "cancelled" {
		t.Errorf("row %+v", row)
	}
}

// TestDrillHealth: a health check that never succeeds fails with the
// command's output; one that succeeds after a while passes.
func TestDrillHealth(t *testing.T) {
	e := newDrillEnv(t, nil, allApps[:3]...)
	flag := t.TempDir() + "/up"
	rep := e.mustDrill(`
steps:
  - waitForPolls: web
  - restart: web-0
    expect:
      health: {command: "echo down >&2; exit 3", within: 1500ms}
  - restart: web-1
    expect:
      health: {command: "test -e ` + flag + ` || { touch ` + flag + `; exit 1; }", within: 10s}
`)
	rep.Steps = rep.Steps[1:]
	wantChecks(t, rep.Steps[0], "PASS Reboot", "PASS web-0", "PASS web-1", "PASS web-2",
		"FAIL web-0 is healthy after its Reboot: event ")
	if c := rep.Steps[0].Checks[4].Detail; !strings.Contains(c, "down") || !strings.Contains(c, "exit status 3") {
		t.Errorf("detail %q, want the output and the exit status", c)
	}
	h := rep.Steps[1].Rows[0].Health
	if h == nil || !h.Passed || h.Attempts != 2 {
		t.Errorf("health %+v, want a pass at the second attempt", h)
	}
}

// TestDrillTimeoutStops: a step whose event outlives its timeout stops the
// drill; the later steps are reported as not run.
func TestDrillTimeoutStops(t *testing.T) {
	e := newDrillEnv(t, []forewarntest.Option{forewarntest.WithDev()}, app{"web-0", false}, app{"web-1", false}, app{"web-2", false})
	rep := e.mustDrill(`
steps:
  - restart: web-0
    timeout: 300ms
  - wait: 1s
`)
	if rep.Passed {
		t.Fatal("passed")
	}
	last := rep.Steps[0].Checks[len(rep.Steps[0].Checks)-1]
	if last.Passed || !strings.Contains(last.Detail, "still in flight") {
		t.Errorf("last check %+v, want the timeout", last)
	}
	if rep.Steps[1].Skipped == "" || len(rep.Steps[1].Checks) != 0 {
		t.Errorf("step 2 %+v, want it skipped", rep.Steps[1])
	}
	// The event the step left Scheduled is cancelled: nothing is left
	// behind on the server.
	if evs, _, _ := e.srv.Fleet().Events(t.Context(), forewarn.EventQuery{}); len(evs) != 0 || len(rep.Steps[0].Withdrawn) != 1 {
		t.Errorf("events in flight %v, withdrawn %v; want the step's event cancelled", evs, rep.Steps[0].Withdrawn)
	}
}

// TestDrillInterruptedCampaign: a campaign cut short is cancelled.
func TestDrillInterruptedCampaign(t *testing.T) {
	e := newDrillEnv(t, []forewarntest.Option{forewarntest.WithDev()})
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	rep, err := e.drillFor(ctx, "steps:\n  - campaign: {type: Reboot, scopes: [web]}\n")
	if err == nil || rep == nil {
		t.Fatalf("report %v, error %v", rep, err)
	}
	c, err := e.srv.Fleet().Campaign(t.Context(), rep.Steps[0].Campaign)
	if err != nil || c.State != forewarn.CampaignCancelled {
		t.Errorf("campaign %+v (%v), want it cancelled", c, err)
	}
	if len(rep.Steps[0].Checks) != 1 {
		t.Errorf("checks %v: want only the interruption's, not judgements on half a step", checks(rep.Steps[0]))
	}
}

// TestDrillWaitForPollsStops: a VM that never comes up stops the drill at
// once.
func TestDrillWaitForPollsStops(t *testing.T) {
	e := newDrillEnv(t, nil, app{"web-0", true})
	rep := e.mustDrill(`
steps:
  - waitForPolls: web
    timeout: 200ms
  - restart: web-0
`)
	wantChecks(t, rep.Steps[0], "FAIL every VM polls: no poll in 200ms from web-1, web-2")
	if rep.Passed || rep.Steps[1].Skipped == "" {
		t.Errorf("passed %v, step 2 skipped %q", rep.Passed, rep.Steps[1].Skipped)
	}
}

// TestDrillPreflight: a VM or scope that does not exist stops the drill
// before it does anything, naming the line.
func TestDrillPreflight(t *testing.T) {
	e := newDrillEnv(t, nil)
	_, err := e.drill("steps:\n  - restart: web-0\n  - restart: web-9\n  - campaign: {type: Reboot, scopes: [web, nope]}\n")
	if err == nil || !strings.Contains(err.Error(), "d.yaml:3:") || !strings.Contains(err.Error(), "d.yaml:4:") {
		t.Fatalf("error %v, want lines 3 and 4", err)
	}
	evs, _, _ := e.srv.Fleet().Events(t.Context(), forewarn.EventQuery{})
	if len(evs) != 0 {
		t.Errorf("%d events after a refused drill, want none", len(evs))
	}

	// The names a fleet file declares pass, but its fleet is applied only
	// once every other name has been found.
	dir := t.TempDir()
	fleetFile := "scopes:\n  - name: extra\n    vms: [{name: extra-0}]\n"
	if err := os.WriteFile(filepath.Join(dir, "fleet.yaml"), []byte(fleetFile), 0o600); err != nil {
		t.Fatal(err)
	}
	drillFile := filepath.Join(dir, "d.yaml")
	if err := os.WriteFile(drillFile, []byte("fleet: fleet.yaml\nsteps:\n  - restart: extra-0\n  - restart: web-9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Load(drillFile)
	if err != nil {
		t.Fatal(err)
	}
	fleet := e.srv.Fleet()
	_, err = e.runner().Run(t.Context(), f)
	if err == nil || strings.Contains(err.Error(), "extra-0") || !strings.Contains(err.Error(), "web-9") {
		t.Errorf("error %v, want web-9 only", err)
	}
	if _, err := fleet.Scope(t.Context(), "extra"); !errors.Is(err, forewarn.ErrNotFound) {
		t.Errorf("scope extra: %v, want it not created by a refused drill", err)
	}
}

// TestDrillRefusedAction: an operation the server refuses (the VM has an
// event in flight already) means the drill cannot run as written: an
// error, with the report so far, and the later steps not run.
func TestDrillRefusedAction(t *testing.T) {
	e := newDrillEnv(t, []forewarntest.Option{forewarntest.WithDev()})
	if _, err := e.srv.Fleet().Operate(t.Context(), "web-0", forewarn.OpRedeploy); err != nil {
		t.Fatal(err)
	}
	rep, err := e.drill("steps:\n  - restart: web-0\n  - wait: 1s\n")
	if err == nil || !strings.Contains(err.Error(), "the server refused the step's action: vm \"web-0\" already has event") {
		t.Fatalf("error %v", err)
	}
	wantChecks(t, rep.Steps[0], "FAIL the step runs to its end: the server refused the step's action: vm")
	if !rep.Steps[0].Checks[0].Error || rep.Incomplete == "" || !strings.HasPrefix(rep.Verdict(), "INCOMPLETE") {
		t.Errorf("check %+v, incomplete %q, verdict %q: want an error, not a failure of the applications",
			rep.Steps[0].Checks[0], rep.Incomplete, rep.Verdict())
	}
	if rep.Passed || rep.Steps[1].Skipped == "" {
		t.Errorf("passed %v, step 2 skipped %q", rep.Passed, rep.Steps[1].Skipped)
	}
}

// TestDrillCampaignBetweenLooks: a campaign whose events all come and go
// between two looks of the drill is reported in full, from the history and
// the polls' sightings.
func TestDrillCampaignBetweenLooks(t *testing.T) {
	e := newDrillEnv(t, []forewarntest.Option{forewarntest.WithDev()}, allApps[:3]...)
	e.interval = 2 * time.Second
	rep := e.mustDrill(`
steps:
  - campaign: {type: Freeze, scopes: [web]}
    expect: {approveWithin: 1s}
`)
	if !rep.Passed || len(rep.Steps[0].Events) != 3 {
		t.Fatalf("passed %v with %d events, want a pass over 3:\n%s", rep.Passed, len(rep.Steps[0].Events), e.out.String())
	}
	for _, row := range rep.Steps[0].Rows {
		if row.SeenAfter == nil || row.Outcome != "approved" {
			t.Errorf("row %+v: want seen and approved", row)
		}
	}
}

// TestDrillInterrupted: a drill whose context ends during a step returns
// the report so far, the step marked failed and the later ones not run.
func TestDrillInterrupted(t *testing.T) {
	e := newDrillEnv(t, []forewarntest.Option{forewarntest.WithDev()}, app{"web-0", false})
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	rep, err := e.drillFor(ctx, "steps:\n  - restart: web-0\n  - wait: 1s\n")
	if !errors.Is(err, context.DeadlineExceeded) || rep == nil {
		t.Fatalf("report %v, error %v; want a report and the context's error", rep, err)
	}
	if rep.Passed || len(rep.Steps) != 2 || rep.Steps[1].Skipped == "" {
		t.Fatalf("report %+v, want a failure and step 2 not run", rep)
	}
	last := rep.Steps[0].Checks[len(rep.Steps[0].Checks)-1]
	if last.Passed || !strings.Contains(last.Detail, "interrupted") {
		t.Errorf("last check of step 1: %+v", last)
	}
}
