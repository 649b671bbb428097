package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
)

// runSplit runs a command line that must succeed and returns its stdout
// and its stderr apart.
func runSplit(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := newCLI(args, &out)
	cmd.SetErr(&errOut)
	if err := cmd.ExecuteContext(t.Context()); err != nil {
		t.Fatalf("forewarn %s: %v\n%s%s", strings.Join(args, " "), err, &out, &errOut)
	}
	return out.String(), errOut.String()
}

// listPages runs a listing with -o json and then the command line each
// "next page:" line on stderr gives, and returns the items of every page
// with the number of pages.
func listPages[T any](t *testing.T, args ...string) ([]T, int) {
	t.Helper()
	var all []T
	for pages := 1; ; pages++ {
		stdout, stderr := runSplit(t, args...)
		var page []T
		if err := json.Unmarshal([]byte(stdout), &page); err != nil {
			t.Fatalf("forewarn %s: stdout is not a JSON list (%v):\n%s", strings.Join(args, " "), err, stdout)
		}
		all = append(all, page...)
		if stderr == "" {
			return all, pages
		}
		next, ok := strings.CutPrefix(strings.TrimSuffix(stderr, "\n"), "next page: forewarn ")
		if !ok || strings.Contains(next, "\n") {
			t.Fatalf("forewarn %s: stderr %q is not one next page line", strings.Join(args, " "), stderr)
		}
		args = strings.Fields(next)
	}
}

// makeListFleet makes scopes web (3 update domains) and db (2) with 25 VMs
// each, every third one Spot, and returns every VM, the host's among them,
// in name order.
func makeListFleet(t *testing.T, srv *testServer) []*forewarn.VM {
	t.Helper()
	c := admin.NewClient(srv.adminURL, srv.token)
	for _, s := range []forewarn.ScopeSpec{{Name: "web", UpdateDomains: 3}, {Name: "db", UpdateDomains: 2}} {
		if _, err := c.CreateScope(t.Context(), s); err != nil {
			t.Fatal(err)
		}
		for i := range 25 {
			spec := forewarn.VMSpec{Name: fmt.Sprintf("%s-%02d", s.Name, i), Scope: s.Name}
			if i%3 == 0 {
				spec.Priority = forewarn.Spot
			}
			if _, err := c.CreateVM(t.Context(), spec); err != nil {
				t.Fatal(err)
			}
		}
	}
	vms, next, err := c.VMs(t.Context(), forewarn.VMQuery{})
	if err != nil || next != "" || len(vms) != 51 {
		t.Fatalf("fleet of %d VMs, next %q: %v", len(vms), next, err)
	}
	return vms
}

func vmNames(vms []*forewarn.VM) []string {
	out := make([]string, len(vms))
	for i, vm := range vms {
		out[i] = vm.Name
	}
	return out
}

// TestVMListPages lists VMs by every filter, whole and a page at a time.
func TestVMListPages(t *testing.T) {
	srv := startServer(t)
	srv.setEnv(t)
	fleet := makeListFleet(t, srv)

	if rs := rows(t, mustRun(t, "vm", "list")); len(rs) != 1+len(fleet) || rs[1][0] != fleet[0].Name {
		t.Errorf("vm list: %d rows, want the header and %d VMs", len(rs), len(fleet))
	}
	got, pages := listPages[*forewarn.VM](t, "vm", "list", "--limit", "7", "-o", "json")
	if !slices.Equal(vmNames(got), vmNames(fleet)) || pages != 8 {
		t.Errorf("vm list --limit 7, page after page: %d pages of %v", pages, vmNames(got))
	}

	var want []string
	for _, vm := range fleet {
		if vm.Scope == "web" && vm.UpdateDomain == 0 && vm.Priority == forewarn.Spot {
			want = append(want, vm.Name)
		}
	}
	got, pages = listPages[*forewarn.VM](t, "vm", "list", "--scope", "WEB", "--update-domain", "0", "--priority", "spot", "--limit", "2", "-o", "json")
	if !slices.Equal(vmNames(got), want) || pages != (len(want)+1)/2 {
		t.Errorf("Spot VMs of web's update domain 0: %d pages of %v, want %v", pages, vmNames(got), want)
	}

	stdout, stderr := runSplit(t, "vm", "list", "--scope", "db", "--after", "db-20")
	if rs := rows(t, stdout); len(rs) != 5 || rs[1][0] != "db-21" || stderr != "" {
		t.Errorf("vm list --scope db --after db-20:\n%s%s", stdout, stderr)
	}
	stdout, stderr = runSplit(t, "vm", "list", "--limit", "3", "--server", srv.adminURL)
	wantNext := "next page: forewarn vm list --limit 3 --server " + srv.adminURL + " --after " + fleet[2].Name + "\n"
	if rs := rows(t, stdout); len(rs) != 4 || stderr != wantNext {
		t.Errorf("vm list --limit 3: stderr %q, want %q; stdout:\n%s", stderr, wantNext, stdout)
	}

	mustFail(t, []string{"vm", "list", "--limit", "-1"}, "--limit must be from 1 to 10000", "-1")
	mustFail(t, []string{"vm", "list", "--limit", "10001"}, "--limit must be from 1 to 10000")
	mustFail(t, []string{"vm", "list", "--update-domain", "-2"}, "--update-domain must be from 0 to 19, not -2")
	mustFail(t, []string{"vm", "list", "--priority", "cheap"}, `"--priority"`, "want Regular or Spot")
	mustFail(t, []string{"vm", "list", "--after", "web/1"}, `invalid after "web/1"`)
	mustFail(t, []string{"vm", "list", "--scope", "nope"}, `"nope"`, "not found")
}

// TestMaintenanceListPages lists events by every filter, whole and a page
// at a time.
func TestMaintenanceListPages(t *testing.T) {
	srv := startServer(t)
	srv.setEnv(t)
	makeListFleet(t, srv)
	for i := range 4 {
		mustRun(t, "vm", "restart", fmt.Sprintf("web-%02d", i))
		mustRun(t, "vm", "fail", fmt.Sprintf("db-%02d", i))
	}
	restart := mustJSON[forewarn.Event](t, "vm", "redeploy", "web-10", "-o", "json")
	mustRun(t, "maintenance", "approve", restart.ID)
	all := mustJSON[[]forewarn.Event](t, "maintenance", "list", "-o", "json")
	if len(all) != 9 {
		t.Fatalf("maintenance list: %d events, want 9", len(all))
	}
	got, pages := listPages[*forewarn.Event](t, "maintenance", "list", "--limit", "2", "-o", "json")
	if len(got) != 9 || pages != 5 {
		t.Fatalf("maintenance list --limit 2, page after page: %d pages, %d events", pages, len(got))
	}
	for i, e := range got {
		if e.ID != all[i].ID {
			t.Errorf("event %d of the pages is %s, want %s", i, e.ID, all[i].ID)
		}
	}

	for _, tc := range []struct {
		args []string
		want func(forewarn.Event) bool
	}{
		{[]string{"--type", "reboot", "--source", "USER"}, func(e forewarn.Event) bool { return e.Source == forewarn.User && e.Type == forewarn.Reboot }},
		{[]string{"--status", "started"}, func(e forewarn.Event) bool { return e.Status == forewarn.Started }},
		{[]string{"--scope", "db", "--source", "platform", "--type", "Reboot"}, func(e forewarn.Event) bool { return e.Scope == "db" }},
		{[]string{"--type", "Freeze"}, func(forewarn.Event) bool { return false }},
	} {
		var want []string
		for _, e := range all {
			if tc.want(e) {
				want = append(want, e.ID)
			}
		}
		got, _ := listPages[forewarn.Event](t, append([]string{"maintenance", "list", "--limit", "3", "-o", "json"}, tc.args...)...)
		var ids []string
		for _, e := range got {
			ids = append(ids, e.ID)
		}
		if !slices.Equal(ids, want) {
			t.Errorf("maintenance list %v: %v, want %v", tc.args, ids, want)
		}
	}
	// An event's id is not a cursor.
	mustFail(t, []string{"maintenance", "list", "--after", all[0].ID}, "invalid after", all[0].ID)
}

// TestListFlagErrors checks the flags of maintenance list that need no
// events.
func TestListFlagErrors(t *testing.T) {
	srv := startServer(t)
	srv.setEnv(t)
	mustFail(t, []string{"maintenance", "list", "--type", "explode"}, `"--type"`, "want Freeze, Reboot, Redeploy, Preempt or Terminate")
	mustFail(t, []string{"maintenance", "list", "--status", "done"}, `"--status"`, "want Scheduled or Started")
	mustFail(t, []string{"maintenance", "list", "--source", "me"}, `"--source"`, "want Platform or User")
	mustFail(t, []string{"maintenance", "list", "--limit", "20000"}, "--limit must be from 1 to 10000")
	mustFail(t, []string{"maintenance", "list", "--after", "garbage"}, `invalid after "garbage"`)
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"web-01": "web-01", "http://127.0.0.1:8170": "http://127.0.0.1:8170",
		"my dir": "'my dir'", "it's": `'it'\''s'`, "": "''",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
