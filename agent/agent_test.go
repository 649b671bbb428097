package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/client"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestAgentEndToEnd: a restart of the agent's VM runs on_scheduled once
// with the event's environment, the agent approves it, on_started and
// on_completed follow; the agent is stopped and started again (same state
// file) after on_scheduled, and nothing runs twice.
// scheduledDone matches a state file that records on_scheduled as done.
var scheduledDone = regexp.MustCompile(`"Scheduled":\s*"ok"`)

func TestAgentEndToEnd(t *testing.T) {
	s := mustStartServer(t, 60) // Reboot: 15 s of notice, 1 s of impact
	if _, err := s.f.EnsureDefaultVM(s.ctx, "vm0", []string{"127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	hooks := filepath.Join(dir, "hooks.log")
	cfg := Config{Endpoint: s.url, StateFile: filepath.Join(dir, "state.json"),
		Hooks:    map[EventType]Hooks{"Reboot": recordAll(hooks)},
		Approval: map[EventType]Policy{"Reboot": AfterHook}}
	// The first run does not approve, so that it stops between two hooks:
	// once on_scheduled is recorded done, before anything else runs.
	firstCfg := cfg
	firstCfg.Approval = map[EventType]Policy{"Reboot": Never}
	first := mustRunAgent(t, firstCfg)
	e, err := s.f.Operate(s.ctx, "vm0", forewarn.OpRestart)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "on_scheduled recorded", func() bool {
		state, _ := os.ReadFile(cfg.StateFile)
		return scheduledDone.Match(state)
	})
	if first.VMName() != "vm0" {
		t.Fatalf("VM name %q, want vm0 (from the instance metadata)", first.VMName())
	}
	first.stop(t)

	mustRunAgent(t, cfg)
	waitFor(t, "on_completed", func() bool { return hookCount(t, hooks, "on_completed") == 1 })
	for hook, want := range map[string]int{"on_scheduled": 1, "on_started": 1, "on_completed": 1, "on_cancelled": 0} {
		if got := hookCount(t, hooks, hook); got != want {
			t.Errorf("%s ran %d times, want %d:\n%s", hook, got, want, strings.Join(lines(t, hooks), "\n"))
		}
	}
	checkScheduledLine(t, lines(t, hooks)[0], e)
	if ended := historyOf(t, s, e.ID); ended.ApprovedBy != "vm0" {
		t.Fatalf("approved by %q, want vm0", ended.ApprovedBy)
	}
}

// checkScheduledLine checks the environment and stdin on_scheduled got.
func checkScheduledLine(t *testing.T, line string, e *forewarn.Event) {
	t.Helper()
	for _, want := range []string{"on_scheduled id=" + e.ID, "type=Reboot", "status=Scheduled",
		"nb=" + e.NotBefore.UTC().Format(time.RFC3339), "res=vm0", "src=User", "dur=", "vm=vm0"} {
		if !strings.Contains(line, want) {
			t.Errorf("on_scheduled got %q, want %q in it", line, want)
		}
	}
	_, stdin, _ := strings.Cut(line, "stdin=")
	var ev client.Event
	if err := json.Unmarshal([]byte(stdin), &ev); err != nil || ev.EventId != e.ID || ev.EventStatus != "Scheduled" {
		t.Errorf("stdin %q: %+v, %v", stdin, ev, err)
	}
}

// historyOf returns the finished event id from the server's history.
func historyOf(t *testing.T, s *server, id string) *forewarn.Event {
	t.Helper()
	var found *forewarn.Event
	waitFor(t, "event "+id+" in the history", func() bool {
		hist, err := s.f.History(s.ctx, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range hist {
			if e.ID == id {
				found = e
			}
		}
		return found != nil
	})
	return found
}

// TestAgentCancelled: an event cancelled while Scheduled runs on_cancelled,
// not on_completed.
func TestAgentCancelled(t *testing.T) {
	s := mustStartServer(t, 1)
	if _, err := s.f.EnsureDefaultVM(s.ctx, "vm0", []string{"127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	hooks := filepath.Join(dir, "hooks.log")
	a := mustRunAgent(t, Config{Endpoint: s.url, VMName: "VM0", StateFile: filepath.Join(dir, "state.json"),
		Hooks: map[EventType]Hooks{DefaultType: recordAll(hooks)}})
	e, err := s.f.Operate(s.ctx, "vm0", forewarn.OpRestart)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "on_scheduled", func() bool { return hookCount(t, hooks, "on_scheduled") == 1 })
	if _, err := s.f.Cancel(s.ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "on_cancelled", func() bool { return hookCount(t, hooks, "on_cancelled") == 1 })
	a.stop(t)
	if n := hookCount(t, hooks, "on_completed") + hookCount(t, hooks, "on_started"); n != 0 {
		t.Fatalf("on_started/on_completed ran for a cancelled event:\n%s", strings.Join(lines(t, hooks), "\n"))
	}
	if got := testutil.ToFloat64(a.metrics.approvals); got != 0 {
		t.Fatalf("%v approvals under the policy never", got)
	}
}

// TestLeaderOnly: three VMs in one Freeze, each with an agent that would
// approve at once and acts as its VM by SourceAddr; only the VM named first
// approves.
func TestLeaderOnly(t *testing.T) {
	s := mustStartServer(t, 60) // Freeze: 15 s of notice
	if _, err := s.f.CreateScope(s.ctx, forewarn.ScopeSpec{Name: "web"}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var agents []*runningAgent
	for i, name := range []string{"web-0", "web-1", "web-2"} {
		addr := "127.0.0." + string(rune('2'+i))
		s.vm(name, "web", addr)
		agents = append(agents, mustRunAgent(t, Config{Endpoint: s.url, SourceAddr: addr,
			StateFile: filepath.Join(dir, name+".json"), LeaderOnly: true, LeaderFallback: Duration(5 * time.Second),
			Hooks:    map[EventType]Hooks{"Freeze": recordAll(filepath.Join(dir, name+".log"))},
			Approval: map[EventType]Policy{"Freeze": Immediately}}))
	}
	c, err := s.f.StartCampaign(s.ctx, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: []string{"web"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"web-0", "web-1", "web-2"} {
		log := filepath.Join(dir, name+".log")
		waitFor(t, name+" on_completed", func() bool { return hookCount(t, log, "on_completed") == 1 })
	}
	total := 0.0
	for _, a := range agents {
		total += testutil.ToFloat64(a.metrics.approvals)
	}
	e := campaignEvent(t, s, c.ID)
	if total != 1 || len(e.Resources) != 3 || e.ApprovedBy != e.Resources[0] {
		t.Fatalf("%v approvals; event resources %v approved by %q", total, e.Resources, e.ApprovedBy)
	}
}

// campaignEvent returns the finished event of a campaign.
func campaignEvent(t *testing.T, s *server, campaign string) *forewarn.Event {
	t.Helper()
	hist, err := s.f.History(s.ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range hist {
		if e.Campaign == campaign {
			return e
		}
	}
	t.Fatalf("no event of campaign %s in the history", campaign)
	return nil
}

// TestSourceAddrNotOnHost: a source_addr the host does not own passes the
// checks (only a request can tell) and fails each request with the dial
// error, which names it.
func TestSourceAddrNotOnHost(t *testing.T) {
	s := mustStartServer(t, 1)
	a, err := New(Config{Endpoint: s.url, SourceAddr: "192.0.2.1", StateFile: filepath.Join(t.TempDir(), "state.json")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.client.Instance(t.Context())
	if err == nil || !strings.Contains(err.Error(), "connect from source address 192.0.2.1: dial tcp") {
		t.Fatalf("err = %v, want the dial error naming source_addr 192.0.2.1", err)
	}
}
