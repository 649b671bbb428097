package drill

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

func TestParseExamples(t *testing.T) {
	for _, name := range []string{"rolling-reboot.yaml", "spot-eviction.yaml"} {
		f, err := Load(filepath.Join("..", "examples", "drills", name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if f.Fleet != filepath.Join("..", "examples", "drills", "fleet.yaml") {
			t.Errorf("%s: fleet = %q, want it next to the drill file", name, f.Fleet)
		}
	}
}

func TestParseStep(t *testing.T) {
	f, err := Parse("d.yaml", []byte(`
timeout: 10m
steps:
  - restart: web-0
  - name: roll
    campaign: {type: reboot, scopes: [web, db], notice: 20m, parallelScopes: 2}
    expect:
      approveWithin: 30s
      approved: false
      polled: false
      health: {command: "true", within: 5s}
  - degrade: {vm: db-0, notice: 2h}
  - degrade: db-1
  - fail: db-2
    expect: {polled: true}
  - evict: spot-0
    timeout: 1m
    expect: {health: "exit 0"}
  - wait: 90s
  - waitForPolls: web
`))
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "d" {
		t.Errorf("name = %q, want the file's base name", f.Name)
	}
	want := []Step{
		{Kind: Restart, VM: "web-0", Timeout: 10 * time.Minute, Expect: Expect{Approved: true, Polled: true}, Line: 4},
		{Name: "roll", Kind: Campaign, Timeout: 10 * time.Minute, Line: 5,
			Campaign: forewarn.CampaignSpec{Type: forewarn.Reboot, Scopes: []string{"web", "db"},
				Notice: forewarn.Duration(20 * time.Minute), ParallelScopes: 2},
			Expect: Expect{ApproveWithin: 30 * time.Second, Health: &Health{Command: "true", Within: 5 * time.Second}}},
		{Kind: Degrade, VM: "db-0", Notice: 2 * time.Hour, Timeout: 10 * time.Minute, Expect: Expect{Approved: true, Polled: true}, Line: 12},
		{Kind: Degrade, VM: "db-1", Timeout: 10 * time.Minute, Expect: Expect{Approved: true, Polled: true}, Line: 13},
		{Kind: Fail, VM: "db-2", Timeout: 10 * time.Minute, Expect: Expect{Approved: true, Polled: true}, Line: 14},
		{Kind: Evict, VM: "spot-0", Timeout: time.Minute, Line: 16,
			Expect: Expect{Approved: true, Polled: true, Health: &Health{Command: "exit 0", Within: DefaultHealthWithin}}},
		{Kind: Wait, Wait: 90 * time.Second, Timeout: 10 * time.Minute, Expect: Expect{Approved: true, Polled: true}, Line: 19},
		{Kind: WaitForPolls, Scopes: []string{"web"}, Timeout: DefaultPollsTimeout, Expect: Expect{Approved: true, Polled: true}, Line: 20},
	}
	if len(f.Steps) != len(want) {
		t.Fatalf("%d steps, want %d", len(f.Steps), len(want))
	}
	for i, w := range want {
		if got := f.Steps[i]; !sameStep(got, w) {
			t.Errorf("step %d = %+v\nwant %+v", i, got, w)
		}
	}
}

func sameStep(a, b Step) bool {
	if (a.Expect.Health == nil) != (b.Expect.Health == nil) ||
		a.Expect.Health != nil && *a.Expect.Health != *b.Expect.Health {
		return false
	}
	a.Expect.Health, b.Expect.Health = nil, nil
	return a.Name == b.Name && a.Kind == b.Kind && a.VM == b.VM && a.Notice == b.Notice &&
		a.Campaign.Type == b.Campaign.Type && strings.Join(a.Campaign.Scopes, ",") == strings.Join(b.Campaign.Scopes, ",") &&
		a.Campaign.Notice == b.Campaign.Notice && a.Campaign.ParallelScopes == b.Campaign.ParallelScopes &&
		a.Wait == b.Wait && strings.Join(a.Scopes, ",") == strings.Join(b.Scopes, ",") &&
		a.Timeout == b.Timeout && a.Expect == b.Expect && a.Line == b.Line
}

// TestParseProblems checks that each fault is found where it is, with a
// message that says what is wrong.
func TestParseProblems(t *testing.T) {
	for _, tc := range []struct{ name, file, want string }{
		{"empty", "", "d.yaml: the file is empty: want steps"},
		{"syntax", "steps: [", "d.yaml:2: invalid YAML"},
		{"no steps", "name: x", "d.yaml:1:1: steps: the drill has no steps"},
		{"empty steps", "steps: []", "d.yaml:1:1: steps: the drill has no steps"},
		{"steps not a list", "steps: restart", `d.yaml:1:8: steps: want a list, got "restart"`},
		{"unknown field", "steps: [{restart: a}]\nstep: 1", "d.yaml:2:1: step: unknown field: want one of name, fleet, timeout, steps"},
		{"no action", "steps:\n  - name: x", "d.yaml:2:5: steps[0]: the step does nothing: want one of restart, redeploy"},
		{"two actions", "steps:\n  - {restart: a, evict: b}", "d.yaml:2:5: steps[0]: the step does restart and evict: want one action a step"},
		{"misspelt", "steps:\n  - {Restart: a}", "d.yaml:2:6: steps[0].Restart: unknown field (did you mean restart?)"},
		{"bad vm", "steps:\n  - restart: 'a b'", `d.yaml:2:14: steps[0].restart: "a b" is not a valid VM name`},
		{"vm list", "steps:\n  - restart: [a]", "d.yaml:2:14: steps[0].restart: want a string, got a list"},
		{"bad wait", "steps:\n  - wait: soon", `d.yaml:2:11: steps[0].wait: "soon" is not a duration (or too long): want one such as 90s or 10m`},
		{"zero wait", "steps:\n  - wait: 0s", `d.yaml:2:11: steps[0].wait: "0s": want more than 0`},
		{"no unit", "steps:\n  - wait: 90", `d.yaml:2:11: steps[0].wait: "90" has no unit: want one such as 90s or 10m`},
		{"overflow", "steps:\n  - wait: 999999999999h", `d.yaml:2:11: steps[0].wait: "999999999999h" is not a duration (or too long)`},
		{"timeout of a wait", "steps:\n  - wait: 1s\n    timeout: 1m", "d.yaml:3:14: steps[0].timeout: a wait step lasts its wait: it has no timeout"},
		{"bad timeout", "timeout: -1m\nsteps: [{restart: a}]", `d.yaml:1:10: timeout: "-1m": want more than 0`},
		{"campaign type", "steps:\n  - campaign: {type: Preempt, scopes: [a]}", `d.yaml:2:22: steps[0].campaign.type: "Preempt" is not a campaign type: want Freeze, Reboot or Redeploy`},
		{"campaign no type", "steps:\n  - campaign: {scopes: [a]}", "d.yaml:2:15: steps[0].campaign: want the type"},
		{"campaign no scope", "steps:\n  - campaign: {type: Reboot}", "d.yaml:2:15: steps[0].campaign: no scope: give scopes (a list) or all: true"},
		{"campaign empty scopes", "steps:\n  - campaign: {type: Reboot, scopes: []}", "d.yaml:2:15: steps[0].campaign: no scope: give scopes (a list) or all: true"},
		{"campaign both", "steps:\n  - campaign: {type: Reboot, scopes: [a], all: true}", "d.yaml:2:15: steps[0].campaign: give scopes or all, not both"},
		{"campaign parallel", "steps:\n  - campaign: {type: Reboot, all: true, parallelScopes: 0}", "d.yaml:2:57: steps[0].campaign.parallelScopes: want at least 1, got 0"},
		{"expect on wait", "steps:\n  - wait: 1s\n    expect: {polled: true}", "d.yaml:3:13: steps[0].expect: a wait step creates no event: it has nothing to expect"},
		{"expect bool", "steps:\n  - restart: a\n    expect: {approved: yes please}", `d.yaml:3:24: steps[0].expect.approved: want true or false, got "yes please"`},
		{"empty health", "steps:\n  - restart: a\n    expect: {health: ' '}", "d.yaml:3:22: steps[0].expect.health: the command is empty"},
		{"health without command", "steps:\n  - restart: a\n    expect: {health: {within: 1m}}", "d.yaml:3:22: steps[0].expect.health: want the command to run"},
		{"approval of a failure", "steps:\n  - fail: a\n    expect: {polled: true, approveWithin: 1s}", "d.yaml:3:28: steps[0].expect.approveWithin: a hardware failure starts at once: there is no approval to expect"},
		{"degrade without vm", "steps:\n  - degrade: {notice: 1h}", "d.yaml:2:14: steps[0].degrade: want the vm to degrade"},
		{"no scopes to wait for", "steps:\n  - waitForPolls: []", "d.yaml:2:19: steps[0].waitForPolls: want the scopes whose VMs must poll"},
		{"anchors", "steps:\n  - &a {restart: x}\n  - *a", "anchors and aliases are not supported"},
		{"two documents", "steps: [{restart: a}]\n---\nsteps: [{restart: b}]", "d.yaml:2:1: a drill file holds a single YAML document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("d.yaml", []byte(tc.file))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %q\nwant it to hold %q", err, tc.want)
			}
			if !errors.Is(err, forewarn.ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
		})
	}
}

// TestParseAllProblems checks that every problem of a file is reported at
// once, in the order of the file.
func TestParseAllProblems(t *testing.T) {
	_, err := Parse("d.yaml", []byte("steps:\n  - wait: x\n  - restart: 'a b'\n  - evict: c\n    expect: {approveWithin: never}\n"))
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "d.yaml:2:") || !strings.HasPrefix(lines[2], "d.yaml:5:") {
		t.Errorf("problems = %q, want three in file order", lines)
	}
}

func TestLoadLimits(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "drill file") {
		t.Errorf("missing file: %v", err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte(strings.Repeat("#", MaxSize+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("big file: %v", err)
	}
}
