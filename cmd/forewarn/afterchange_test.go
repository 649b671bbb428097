package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// TestChangesPrintStateAfter checks that the commands that change
// something print it as it is after the change: a scope created under
// --dev is enabled, as scope show says; a cancelled event shows its
// outcome; an approved one is Started and names its approver.
func TestChangesPrintStateAfter(t *testing.T) {
	srv := startServer(t) // --dev: every scope enabled
	srv.setEnv(t)

	out := mustRun(t, "scope", "create", "web", "--update-domains", "2")
	if rs := rows(t, out); len(rs) != 2 || rs[0][5] != "ENABLED" || rs[1][5] != "yes" {
		t.Errorf("scope create under --dev:\n%s", out)
	}
	created := mustJSON[forewarn.Scope](t, "scope", "create", "db", "-o", "json")
	shown := mustJSON[forewarn.Scope](t, "scope", "show", "db", "-o", "json")
	if !created.Enabled || created.Enabled != shown.Enabled {
		t.Errorf("scope create -o json says enabled %v, scope show %v", created.Enabled, shown.Enabled)
	}
	mustRun(t, "vm", "create", "web-0", "--scope", "web", "--address", "127.0.41.1")

	ev := mustJSON[forewarn.Event](t, "vm", "restart", "web-0", "-o", "json")
	if ev.Status != forewarn.Scheduled || ev.NotBefore.IsZero() {
		t.Errorf("vm restart = %+v", ev)
	}
	out = mustRun(t, "maintenance", "cancel", ev.ID)
	if rs := rows(t, out); len(rs) != 2 || rs[0][2] != "OUTCOME" || rs[1][0] != ev.ID || rs[1][2] != "Cancelled" {
		t.Errorf("maintenance cancel:\n%s", out)
	}

	ev = mustJSON[forewarn.Event](t, "vm", "restart", "web-0", "-o", "json")
	cancelled := mustJSON[forewarn.Event](t, "maintenance", "cancel", ev.ID, "-o", "json")
	if cancelled.Outcome != forewarn.Cancelled || cancelled.EndedAt.IsZero() || cancelled.Status != forewarn.Scheduled {
		t.Errorf("maintenance cancel -o json = %+v, want the history's object: outcome Cancelled, the status it had", cancelled)
	}
	history := mustJSON[[]forewarn.Event](t, "maintenance", "history", "-o", "json")
	if len(history) != 2 || history[0].ID != ev.ID || history[0].Outcome != cancelled.Outcome || history[0].Status != cancelled.Status {
		t.Errorf("history = %+v, want the cancelled event as cancel printed it", history)
	}

	ev = mustJSON[forewarn.Event](t, "vm", "restart", "web-0", "-o", "json")
	out = mustRun(t, "maintenance", "approve", ev.ID)
	if rs := rows(t, out); len(rs) != 2 || rs[0][2] != "STATUS" || rs[1][2] != "Started" || rs[1][5] != "-" || rs[1][7] != "admin" {
		t.Errorf("maintenance approve:\n%s", out)
	}
}

// TestResolvePrintsOutcome checks that resolve --complete prints the event
// it completed with its outcome, as the history shows it.
func TestResolvePrintsOutcome(t *testing.T) {
	srv := startServer(t, "--actuator", "exec", "--exec-attempts", "1", "--exec-command", "exit 3")
	srv.setEnv(t)
	ev := mustJSON[forewarn.Event](t, "vm", "restart", srv.hostVM, "-o", "json")
	mustRun(t, "maintenance", "approve", ev.ID)
	awaitFailed(t, "after the approval", ev.ID, srv.hostVM)

	out := mustRun(t, "maintenance", "resolve", ev.ID, "--complete")
	rs := rows(t, out)
	if len(rs) != 2 || rs[0][2] != "OUTCOME" || rs[1][0] != ev.ID || rs[1][2] != "Completed" {
		t.Errorf("maintenance resolve --complete:\n%s", out)
	}
}

// TestCampaignNoticeRaised checks that maintenance start prints the notice
// its events get, and says when the type's minimum raised the one asked.
func TestCampaignNoticeRaised(t *testing.T) {
	srv := startServer(t)
	srv.setEnv(t)

	start := time.Now()
	out := mustRun(t, "maintenance", "start", "--type", "Reboot", "--notice", "10m", "--scope", "default")
	if got, want := summaryLine(t, out, "Notice:"), "15m0s (raised from 10m0s, the minimum for Reboot)"; got != want {
		t.Errorf("Notice: %q, want %q", got, want)
	}
	id := summaryField(t, out, "ID:")
	if c := mustJSON[forewarn.Campaign](t, "maintenance", "campaign", "show", id, "-o", "json"); time.Duration(c.Spec.Notice) != 15*time.Minute {
		t.Errorf("the campaign records notice %v, want the 15m used", c.Spec.Notice)
	}
	if got := summaryLine(t, mustRun(t, "maintenance", "campaign", "show", id), "Notice:"); got != "15m0s" {
		t.Errorf("campaign show: Notice: %q", got)
	}
	events := mustJSON[[]forewarn.Event](t, "maintenance", "list", "-o", "json")
	if len(events) != 1 || events[0].NotBefore.Before(start.Add(15*time.Minute)) {
		t.Errorf("the campaign's event = %+v, want 15m of notice", events)
	}
	mustRun(t, "maintenance", "campaign", "cancel", id)

	out = mustRun(t, "maintenance", "start", "--type", "Freeze", "--scope", "default")
	if got := summaryLine(t, out, "Notice:"); got != "15m0s (the minimum for Freeze)" {
		t.Errorf("without --notice, Notice: %q", got)
	}
	mustRun(t, "maintenance", "campaign", "cancel", summaryField(t, out, "ID:"))
	out = mustRun(t, "maintenance", "start", "--type", "Redeploy", "--notice", "20m", "--scope", "default")
	if got := summaryLine(t, out, "Notice:"); got != "20m0s" {
		t.Errorf("with --notice above the minimum, Notice: %q", got)
	}
}

// summaryLine returns the rest of the line after label in a campaign's
// summary.
func summaryLine(t *testing.T, out, label string) string {
	t.Helper()
	for line := range strings.Lines(out) {
		if rest, ok := strings.CutPrefix(line, label); ok {
			return strings.TrimSpace(rest)
		}
	}
	t.Fatalf("no %q in\n%s", label, out)
	return ""
}

// TestFlagChecksNameFlags checks that the CLI checks its flags itself and
// names them, rather than passing the API's wording on.
func TestFlagChecksNameFlags(t *testing.T) {
	srv := startServer(t)
	srv.setEnv(t)

	if rs := rows(t, mustRun(t, "vm", "list", "--limit", "0")); len(rs) != 2 {
		t.Errorf("vm list --limit 0 lists everything: %q", rs)
	}
	mustFail(t, []string{"vm", "list", "--limit", "-5"}, "--limit must be from 1 to 10000, or 0 to list everything, not -5")
	mustFail(t, []string{"maintenance", "list", "--limit", "10001"}, "--limit must be from 1 to 10000, or 0 to list everything, not 10001")
	mustFail(t, []string{"vm", "list", "--update-domain", "25"}, "--update-domain must be from 0 to 19, not 25")
	mustFail(t, []string{"maintenance", "history", "--limit", "100000"}, "--limit must be from 1 to 10000, not 100000")
	mustFail(t, []string{"scope", "create", "x", "--update-domains", "25"}, "--update-domains must be from 1 to 20, not 25")
	mustFail(t, []string{"scope", "create", "x", "--fault-domains", "6"}, "--fault-domains must be from 1 to 5, not 6")
	mustFail(t, []string{"scope", "create", "x", "--terminate-notice", "1m"}, "--terminate-notice must be from 5m to 15m, not 1m")
	mustFail(t, []string{"scope", "create", "x", "--kind", "rack"}, `"rack"`, "--kind", "availability-set, scale-set or cloud-service")
	mustFail(t, []string{"vm", "create", "x", "--update-domain", "-1"}, "--update-domain must be from 0 to 19, not -1")
	mustFail(t, []string{"vm", "create", "x", "--fault-domain", "5"}, "--fault-domain must be from 0 to 4, not 5")
	mustFail(t, []string{"chaos", "add", "--all", "--status", "500", "--for", "8d"}, "--for must be at most 7d, not 8d")
	mustFail(t, []string{"maintenance", "start", "--type", "Freeze", "--all", "--duration", "500ms"}, "--duration must be at least 1s, not 500ms")
	for _, args := range [][]string{{"vm", "list", "--help"}, {"maintenance", "list", "--help"}} {
		if out := mustRun(t, args...); !strings.Contains(out, "0, the default, lists them all") {
			t.Errorf("forewarn %s does not say what 0 does:\n%s", strings.Join(args, " "), out)
		}
	}
	if scopes := rows(t, mustRun(t, "scope", "list")); len(scopes) != 2 {
		t.Errorf("a refused command created a scope: %q", scopes)
	}
}

// TestHistoryPagesCLI pages through maintenance history with --after, as
// the other listings do, and checks that its help gives the default.
func TestHistoryPagesCLI(t *testing.T) {
	srv := startServer(t)
	srv.setEnv(t)
	var ids []string // newest first
	for range 3 {
		ev := mustJSON[forewarn.Event](t, "vm", "restart", srv.hostVM, "-o", "json")
		mustRun(t, "maintenance", "cancel", ev.ID)
		ids = append([]string{ev.ID}, ids...)
	}

	var got []string
	args := []string{"maintenance", "history", "--limit", "2"}
	for range 3 {
		out := mustRun(t, args...)
		listing, next, _ := strings.Cut(out, "next page: ")
		for _, r := range rows(t, listing)[1:] {
			got = append(got, r[0])
		}
		if next == "" {
			break
		}
		args = strings.Fields(strings.TrimSpace(next))[1:] // without "forewarn"
		if i := slices.Index(args, "--after"); i < 0 || args[len(args)-2] != "--after" {
			t.Fatalf("next page: %q", next)
		}
	}
	if !slices.Equal(got, ids) {
		t.Errorf("history by pages of 2 = %q, want %q", got, ids)
	}
	if out := mustRun(t, "maintenance", "history", "--help"); !strings.Contains(out, "(default 100)") || !strings.Contains(out, "--after") {
		t.Errorf("maintenance history --help:\n%s", out)
	}
	if h := mustJSON[[]forewarn.Event](t, "maintenance", "history", "-o", "json"); len(h) != 3 {
		t.Errorf("maintenance history (a page of 100) = %d events", len(h))
	}
}

// TestNewcomerMessages checks the messages a newcomer met.
func TestNewcomerMessages(t *testing.T) {
	srv := startServer(t, "--max-user-ops", "1")
	srv.setEnv(t)

	// --server at the metadata listener.
	mustFail(t, []string{"scope", "list", "--server", srv.metadataURL},
		srv.metadataURL, "not forewarn's admin API", "--admin-addr", "127.0.0.1:8170")

	// A command one level down.
	mustFail(t, []string{"maintenance", "pause", "x"}, `unknown command "pause"`, `did you mean "forewarn maintenance campaign pause"?`)
	mustFail(t, []string{"vm", "resatrt", "x"}, `did you mean "forewarn vm restart"?`)
	mustFail(t, []string{"vmm", "list"}, `unknown command "vmm" for "forewarn"; did you mean "forewarn vm"?`)

	// Counts.
	mustRun(t, "scope", "create", "web")
	mustRun(t, "vm", "create", "web-0", "--scope", "web")
	mustRun(t, "vm", "create", "web-1", "--scope", "web")
	mustFail(t, []string{"scope", "delete", "web"}, `scope "web" still has 2 VMs`)
	mustRun(t, "vm", "delete", "web-1")
	mustFail(t, []string{"scope", "delete", "web"}, `scope "web" still has 1 VM:`)

	// The limit of user operations names serve's flag.
	mustRun(t, "vm", "create", "web-1", "--scope", "web")
	mustRun(t, "vm", "restart", "web-0")
	mustFail(t, []string{"vm", "restart", "web-1"}, "already has 1 user operation in flight, the most allowed (serve --max-user-ops)")

	// Steering a campaign is idempotent; an ended one refuses to be paused
	// or resumed.
	id := summaryField(t, mustRun(t, "maintenance", "start", "--type", "Freeze", "--scope", "default"), "ID:")
	for _, step := range []struct {
		action string
		want   forewarn.CampaignState
	}{
		{"pause", forewarn.CampaignPaused}, {"pause", forewarn.CampaignPaused},
		{"resume", forewarn.CampaignRunning}, {"resume", forewarn.CampaignRunning},
		{"cancel", forewarn.CampaignCancelled}, {"cancel", forewarn.CampaignCancelled},
	} {
		steerAndCheck(t, id, step.action, step.want)
	}
	mustFail(t, []string{"maintenance", "campaign", "pause", id}, id, "is cancelled: an ended campaign cannot be paused")
	mustFail(t, []string{"maintenance", "campaign", "resume", id}, id, "is cancelled: an ended campaign cannot be resumed")
}

// TestApplyConflictsOnePerLine checks that apply prints each conflict that
// refuses the file on a line of its own, as --dry-run does.
func TestApplyConflictsOnePerLine(t *testing.T) {
	srv := startServer(t)
	srv.setEnv(t)
	mustRun(t, "apply", "-f", writeFile(t, "fleet.yaml", smallFleet))
	conflict := writeFile(t, "conflict.yaml", `scopes:
  - name: web
    updateDomains: 3
    vms:
      - name: web-0
        addresses: [127.0.30.2]
`)
	out, err := runCLI(t, "apply", "-f", conflict)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.HasSuffix(err.Error(), "2 conflicts with the fleet, nothing was changed") ||
		len(lines) != 2 || !strings.HasSuffix(lines[0], "conflict.yaml:2: conflict scope web: updateDomains: file 3, server 2") ||
		!strings.Contains(lines[1], "conflict.yaml:5: conflict vm web-0: ") {
		t.Errorf("apply of a file with two conflicts: %v; output:\n%s", err, out)
	}
	changes := mustJSONFail[[]map[string]string](t, "apply", "-f", conflict, "-o", "json")
	if len(changes) != 2 || changes[0]["action"] != "conflict" || changes[1]["name"] != "web-0" {
		t.Errorf("apply -o json of a file in conflict = %v", changes)
	}
}

// mustJSONFail runs a command line that must fail and decodes what it
// printed.
func mustJSONFail[T any](t *testing.T, args ...string) T {
	t.Helper()
	var out strings.Builder
	cmd := newCLI(args, &out)
	cmd.SetErr(&strings.Builder{})
	if err := cmd.ExecuteContext(t.Context()); err == nil {
		t.Fatalf("forewarn %s succeeded", strings.Join(args, " "))
	}
	var v T
	if err := json.Unmarshal([]byte(out.String()), &v); err != nil {
		t.Fatalf("forewarn %s: output is not the JSON expected: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return v
}

// TestEventsColumnsOfVersion checks that events shows only the columns of
// the fields its api-version has.
func TestEventsColumnsOfVersion(t *testing.T) {
	srv := startServer(t)
	srv.setEnv(t)
	mustRun(t, "vm", "restart", srv.hostVM)
	for version, want := range map[string][]string{
		"2017-03-01": {"ID", "TYPE", "STATUS", "RESOURCES", "NOT-BEFORE"},
		"2019-04-01": {"ID", "TYPE", "STATUS", "RESOURCES", "NOT-BEFORE", "DESCRIPTION"},
		"2019-08-01": {"ID", "TYPE", "STATUS", "RESOURCES", "NOT-BEFORE", "SOURCE", "DESCRIPTION"},
		"2020-07-01": {"ID", "TYPE", "STATUS", "RESOURCES", "NOT-BEFORE", "DURATION", "SOURCE", "DESCRIPTION"},
	} {
		out := mustRun(t, "events", "--api-version", version)
		rs := rows(t, out)
		if len(rs) != 3 || !slices.Equal(rs[1], want) || len(rs[2]) < len(want) {
			t.Errorf("events --api-version %s:\n%s", version, out)
		}
	}
}

// TestDataDirInUse checks what a second serve on a data directory in use
// says.
func TestDataDirInUse(t *testing.T) {
	srv := startServer(t)
	err := serveError(t, "--data-dir", srv.dataDir)
	want := "data dir " + srv.dataDir + " is in use by another forewarn serve (bbolt lock on " +
		filepath.Join(srv.dataDir, "forewarn.db") + ")"
	if err.Error() != want {
		t.Errorf("a second serve: %v, want %q", err, want)
	}
}
