package e2e

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/forewarn/forewarn"
)

// maxFleetCells is the most VM cells the fleet tab may hold at once: it
// pages, so that 10,000 VMs do not freeze the tab.
const maxFleetCells = 2500

// TestDashboardTenThousandVMs opens the dashboard on a fleet of 10,000 VMs
// in 1,000 scopes (built by internal/tools/mkfleet) while a campaign
// schedules an event in every scope: the fleet tab pages instead of
// rendering every VM, its filters find one VM among them, and the page
// takes in the campaign's burst of changes. It logs the times it measures
// (BENCHMARKS.md) and asserts none.
func TestDashboardTenThousandVMs(t *testing.T) {
	chromium(t) // skip before the costly part without a browser
	dataDir := t.TempDir()
	build := exec.Command("go", "run", "../internal/tools/mkfleet", "-data-dir", dataDir, "-scopes", "1000", "-vms", "10")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("mkfleet: %v\n%s", err, out)
	}
	s := startServer(t, dataDir, "--dev")
	b := newBrowser(t, "http://"+s.admAddr)

	start := time.Now()
	b.signIn(adminToken(t, dataDir))
	t.Logf("sign-in to ready with 10,000 VMs: %v", time.Since(start))
	b.click("#tab-fleet")
	b.waitFor("the first page", `document.querySelectorAll("#fleet button[data-vm]").length > 0`, 60*time.Second)
	b.checkPaged("the first page")
	first := b.text("#fleet-page")
	b.click("#fleet-next")
	b.waitFor("the next page", fmt.Sprintf(`document.querySelector("#fleet-page")?.textContent !== %q`, first), 60*time.Second)
	b.checkPaged("the second page")

	// One VM deep in the fleet gets an event; the filters find it.
	if _, err := s.admin.Operate(t.Context(), "s00987-3", forewarn.OpRestart); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	b.setValue("#filter-state", "scheduled", "change")
	b.waitFor("only s00987-3", `document.querySelectorAll("#fleet button[data-vm]").length === 1 && !!document.querySelector('button[data-vm="s00987-3"]')`, 60*time.Second)
	t.Logf("state filter over 10,000 VMs: %v", time.Since(start))
	b.setValue("#filter-state", "all", "change")
	b.do("filter by scope", chromedp.SendKeys(chromedp.CSS("#filter-scope"), "s0042"))
	b.waitFor("the scopes s0042x", `document.querySelectorAll("#fleet [data-scope]").length === 10`, 60*time.Second)
	b.setValue("#filter-scope", "", "input")

	// A campaign over every scope: 1,000 scopes change at once.
	b.watchLongTasks()
	start = time.Now()
	if _, err := s.admin.StartCampaign(t.Context(), forewarn.CampaignSpec{Type: forewarn.Freeze, All: true, ParallelScopes: 1000}); err != nil {
		t.Fatal(err)
	}
	b.click("#tab-fleet")
	b.waitFor("update domain 0 of every scope on the page scheduled",
		`document.querySelectorAll('#fleet button[data-vm][data-state="scheduled"]').length >= 100`, 60*time.Second)
	t.Logf("campaign over 1,000 scopes at once shown after %v; longest task of the page meanwhile %.0f ms",
		time.Since(start), eval[float64](b, "window.__longestTask"))
	b.click("#tab-events")
	b.waitFor("a page of the campaign's 1,000 events", `document.querySelectorAll("#events-table tr[data-event]").length >= 100`, 60*time.Second)
	b.checkAccessibility("a page of 1,000 events")
	b.click("#tab-fleet")
	b.checkPaged("the page during the campaign")
	b.screenshot("06-fleet-10000")
	b.checkAccessibility("a page of the fleet of 10,000 VMs")
	b.checkNoErrors("the large fleet")
}

// checkPaged fails the test if the fleet tab holds more VM cells than a
// page.
func (b *browser) checkPaged(what string) {
	b.t.Helper()
	if n := eval[int](b, `document.querySelectorAll("#fleet button[data-vm]").length`); n > maxFleetCells {
		b.t.Errorf("%s holds %d VM cells, more than a page (%d)", what, n, maxFleetCells)
	}
	if page := b.text("#fleet-page"); !strings.Contains(page, "1000") && !strings.Contains(page, "1,000") {
		b.t.Errorf("%s: #fleet-page = %q, want it to count the 1,000 scopes", what, page)
	}
}

// setValue sets the value of a form field and fires the DOM event a user's
// edit would.
func (b *browser) setValue(sel, value, event string) {
	b.t.Helper()
	eval[bool](b, fmt.Sprintf(`(() => {
		const el = document.querySelector(%q);
		el.value = %q;
		return el.dispatchEvent(new Event(%q, {bubbles: true}));
	})()`, sel, value, event))
}

// watchLongTasks makes the page note its longest task from now on in
// window.__longestTask (ms).
func (b *browser) watchLongTasks() {
	b.t.Helper()
	eval[bool](b, `(() => {
		window.__longestTask = 0;
		new PerformanceObserver(list => {
			for (const e of list.getEntries()) window.__longestTask = Math.max(window.__longestTask, e.duration);
		}).observe({type: "longtask", buffered: false});
		return true;
	})()`)
}
