package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/client"
)

// TestCampaign starts a campaign over a scope of two update domains and
// steers it: list, show, pause, resume, the next update domain once the
// first has completed, and cancel.
func TestCampaign(t *testing.T) {
	srv := startServer(t, "--time-scale", "60") // notice 15 s, reboot 1 s
	srv.setEnv(t)
	mustRun(t, "scope", "create", "web", "--update-domains", "2", "--fault-domains", "2")
	mustRun(t, "vm", "create", "web-0", "--scope", "web", "--update-domain", "0", "--address", "127.0.20.1")
	mustRun(t, "vm", "create", "web-1", "--scope", "web", "--update-domain", "1", "--address", "127.0.20.2")

	out := mustRun(t, "maintenance", "start", "--type", "reboot", "--scope", "web")
	id := summaryField(t, out, "ID:")
	progress := rowStarting(t, out, "SCOPE")
	if want := []string{"SCOPE", "UDS", "DONE", "EVENT", "WAITING", "NO-NOTICE"}; !slices.Equal(progress, want) {
		t.Errorf("progress header = %q, want %q", progress, want)
	}
	if web := rowStarting(t, out, "web"); len(web) != 6 || web[1] != "2" || web[2] != "0" || web[3] == "-" || web[5] != "no" {
		t.Errorf("progress of web = %q in\n%s", web, out)
	}
	if summaryField(t, out, "State:") != "running" || strings.Contains(out, "NO NOTICE") {
		t.Errorf("maintenance start:\n%s", out)
	}

	rs := rows(t, mustRun(t, "maintenance", "campaigns"))
	if want := []string{"ID", "TYPE", "STATE", "SCOPES", "DONE/TOTAL", "EVENTS-IN-FLIGHT", "ESTIMATED-END"}; !slices.Equal(rs[0], want) {
		t.Errorf("campaigns header = %q, want %q", rs[0], want)
	}
	if len(rs) != 2 || !slices.Equal(rs[1][:6], []string{id, "Reboot", "running", "web", "0/2", "1"}) || rs[1][6] == "-" {
		t.Errorf("campaigns = %q", rs)
	}

	steerAndCheck(t, id, "pause", forewarn.CampaignPaused)
	steerAndCheck(t, id, "resume", forewarn.CampaignRunning)
	first := mustJSON[forewarn.Campaign](t, "maintenance", "campaign", "show", id, "-o", "json").Scopes[0].Event
	next := campaignNextDomain(t, srv, id, first)

	cancelled := steerAndCheck(t, id, "cancel", forewarn.CampaignCancelled)
	if cancelled.EndedAt.IsZero() || !cancelled.EstimatedEnd.IsZero() {
		t.Errorf("cancelled campaign = %+v", cancelled)
	}
	history := mustJSON[[]forewarn.Event](t, "maintenance", "history", "-o", "json")
	if len(history) != 2 || history[0].ID != next || history[0].Outcome != forewarn.Cancelled ||
		history[1].ID != first || history[1].Outcome != forewarn.Completed || history[1].Campaign != id {
		t.Errorf("history = %+v", history)
	}
	mustFail(t, []string{"maintenance", "campaign", "resume", id}, id, "cancelled")
	mustFail(t, []string{"maintenance", "campaign", "show", "no-such-campaign"}, "not found")
}

// campaignNextDomain approves the event of the first update domain, waits
// for the event of the second, as web-1 sees it, and returns its id.
func campaignNextDomain(t *testing.T, srv *testServer, id, first string) string {
	t.Helper()
	mustRun(t, "maintenance", "approve", first)
	doc := awaitVMDocument(t, srv, "127.0.20.2", func(doc *client.Document) bool {
		return slices.ContainsFunc(doc.Events, func(e client.Event) bool { return slices.Equal(e.Resources, []string{"web-1"}) })
	})
	ev := doc.Events[len(doc.Events)-1]
	if ev.EventSource != "Platform" || ev.EventType != "Reboot" || ev.Description != "Host server is undergoing maintenance." {
		t.Errorf("event of update domain 1 = %+v", ev)
	}
	c := mustJSON[forewarn.Campaign](t, "maintenance", "campaign", "show", id, "-o", "json")
	if p := c.Scopes[0]; p.Done != 1 || p.Event != ev.EventId {
		t.Errorf("progress after the first update domain = %+v, want done 1, event %s", p, ev.EventId)
	}
	if out := mustRun(t, "maintenance", "campaign", "show", id); summaryField(t, out, "Progress:") != "1/2" {
		t.Errorf("campaign show:\n%s", out)
	}
	return ev.EventId
}

// steerAndCheck runs maintenance campaign ACTION ID, checks the state of
// the campaign printed, and returns it.
func steerAndCheck(t *testing.T, id, action string, want forewarn.CampaignState) forewarn.Campaign {
	t.Helper()
	c := mustJSON[forewarn.Campaign](t, "maintenance", "campaign", action, id, "-o", "json")
	if c.ID != id || c.State != want {
		t.Errorf("campaign %s: %s in state %s, want %s %s", action, c.ID, c.State, id, want)
	}
	if out := mustRun(t, "maintenance", "campaign", "show", id); summaryField(t, out, "State:") != string(want) {
		t.Errorf("campaign show after %s:\n%s", action, out)
	}
	return c
}

// TestCampaignNoNotice checks that a campaign names the scopes that have
// not enabled Scheduled Events, whose events start at once.
func TestCampaignNoNotice(t *testing.T) {
	srv := startServer(t, "--dev=false")
	srv.setEnv(t)
	mustRun(t, "scope", "create", "quiet", "--update-domains", "1")
	mustRun(t, "vm", "create", "quiet-0", "--scope", "quiet")

	out := mustRun(t, "maintenance", "start", "--type", "Freeze", "--all", "--parallel-scopes", "2")
	if !strings.Contains(out, "NO NOTICE: default, quiet have not enabled Scheduled Events") {
		t.Errorf("maintenance start does not name the scopes without notice:\n%s", out)
	}
	if quiet := rowStarting(t, out, "quiet"); quiet[5] != "yes" {
		t.Errorf("progress of quiet = %q", quiet)
	}
	if summaryField(t, out, "Duration:") != "5s" {
		t.Errorf("a Freeze shows 5s:\n%s", out)
	}
	events := mustJSON[[]forewarn.Event](t, "maintenance", "list", "--scope", "quiet", "-o", "json")
	if len(events) != 1 || events[0].Status != forewarn.Started || events[0].Type != forewarn.Freeze ||
		events[0].Description != "Virtual machine is being paused because of a memory-preserving Live Migration operation." {
		t.Errorf("events of quiet = %+v, want one Freeze, Started at once", events)
	}
	c := mustJSON[[]forewarn.Campaign](t, "maintenance", "campaigns", "-o", "json")
	if len(c) != 1 || !c[0].Spec.All || len(c[0].Scopes) != 2 || !c[0].Scopes[0].NoNotice || !c[0].Scopes[1].NoNotice {
		t.Errorf("campaigns -o json = %+v", c)
	}
}

// summaryField returns the first word after label in a campaign's summary.
func summaryField(t *testing.T, out, label string) string {
	t.Helper()
	for line := range strings.Lines(out) {
		if rest, ok := strings.CutPrefix(line, label); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				return f[0]
			}
		}
	}
	t.Fatalf("no %q in\n%s", label, out)
	return ""
}

// rowStarting returns the fields of the first line whose first field is
// first.
func rowStarting(t *testing.T, out, first string) []string {
	t.Helper()
	for line := range strings.Lines(out) {
		if f := strings.Fields(line); len(f) > 0 && f[0] == first {
			return f
		}
	}
	t.Fatalf("no line starting with %q in\n%s", first, out)
	return nil
}
