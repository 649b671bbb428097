package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// browser is a headless Chromium driving the dashboard of one server.
type browser struct {
	t    *testing.T
	ctx  context.Context
	base string // the admin API, http://host:port

	mu     sync.Mutex
	errors []string // uncaught exceptions and console errors of the page
}

// chromium returns the Chromium binary, or skips the test if there is none
// (it fails instead under FOREWARN_REQUIRE_BROWSER=1, as in CI).
func chromium(t *testing.T) string {
	t.Helper()
	path := os.Getenv("FOREWARN_CHROMIUM")
	if path == "" {
		path, _ = exec.LookPath("chromium")
	}
	if path == "" {
		if os.Getenv("FOREWARN_REQUIRE_BROWSER") == "1" {
			t.Fatal("no chromium found (install Debian's chromium: scripts/deps.sh) and FOREWARN_REQUIRE_BROWSER=1")
		}
		t.Skip("no chromium found: install Debian's chromium (scripts/deps.sh) or set FOREWARN_CHROMIUM")
	}
	return path
}

// newBrowser starts a headless Chromium, with a laptop's screen, for the
// dashboard at base. It is closed when the test ends.
func newBrowser(t *testing.T, base string) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.WindowSize(1366, 768), // the commonest laptop screen
		chromedp.NoSandbox,             // root in CI containers
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	b := &browser{t: t, base: base}
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithListener(b.watch))
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	b.ctx = ctx
	if err := chromedp.Do(ctx); err != nil { // start the browser, without a deadline
		t.Fatalf("start chromium: %v", err)
	}
	b.darkTheme(false)
	return b
}

// watch notes the page's uncaught exceptions, console errors and the
// browser's own errors, such as a violation of the page's
// Content-Security-Policy.
func (b *browser) watch(ev any) {
	var msg string
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg = fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber+1, d.Text)
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
	case *runtime.EventConsoleAPICalled:
		if ev.Type != runtime.ConsoleAPICalledTypeError {
			return
		}
		var parts []string
		for _, a := range ev.Args {
			parts = append(parts, a.Description+string(a.Value))
		}
		msg = "console.error: " + strings.Join(parts, " ")
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level != cdplog.EntryLevelError {
			return
		}
		msg = fmt.Sprintf("browser %s error: %s (%s)", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
	default:
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.errors = append(b.errors, msg)
}

// pageErrors returns the errors noted so far and forgets them.
func (b *browser) pageErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	errs := b.errors
	b.errors = nil
	return errs
}

// do runs the actions with a deadline, failing the test with what was
// being done.
func (b *browser) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// waitFor waits until the JavaScript expression is true. It asks again
// every 50 ms, also across a navigation, during which the page cannot
// answer.
func (b *browser) waitFor(what, expr string, timeout time.Duration) {
	b.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("waiting until %s (%s): not after %v (last error: %v)", what, expr, timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// eval returns the value of a JavaScript expression.
func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// text returns the text of the first element the selector matches, "" if
// none does.
func (b *browser) text(sel string) string {
	b.t.Helper()
	return eval[string](b, fmt.Sprintf("document.querySelector(%q)?.textContent ?? ''", sel))
}

// attr returns an attribute of the first element the selector matches, ""
// if it has none.
func (b *browser) attr(sel, name string) string {
	b.t.Helper()
	return eval[string](b, fmt.Sprintf("document.querySelector(%q)?.getAttribute(%q) ?? ''", sel, name))
}

// click clicks the first element the selector matches, once it is
// visible, scrolled to the middle of the window first, where no sticky
// header or footer covers it.
func (b *browser) click(sel string) {
	b.t.Helper()
	b.do("click "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
	eval[bool](b, fmt.Sprintf(`(document.querySelector(%q).scrollIntoView({block: "center"}), true)`, sel))
	b.do("click "+sel, chromedp.Click(chromedp.CSS(sel)))
}

// screenshot saves the page as NAME.png in the screenshots folder
// ($FOREWARN_SCREENSHOTS, by default artifacts/screenshots at the top of
// the repository), which CI keeps.
func (b *browser) screenshot(name string) {
	b.t.Helper()
	dir := os.Getenv("FOREWARN_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join("..", "artifacts", "screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// darkTheme makes the page follow a dark system theme (dark=true) or a
// light one, as the operator's system would say, and ask for reduced
// motion, so that no colour transition is half-way when it is checked.
func (b *browser) darkTheme(dark bool) {
	b.t.Helper()
	scheme := "light"
	if dark {
		scheme = "dark"
	}
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{
			{Name: "prefers-color-scheme", Value: scheme},
			{Name: "prefers-reduced-motion", Value: "reduce"},
		}})
	if err != nil {
		b.t.Fatalf("emulate a %s theme: %v", scheme, err)
	}
}

// axeVersion is the axe-core release scripts/deps.sh fetches from the npm
// registry for the accessibility checks.
const axeVersion = "4.14.1"

// axeScript returns axe-core's script: $FOREWARN_AXE, or where
// scripts/deps.sh puts it. Without it the check skips, or fails under
// FOREWARN_REQUIRE_BROWSER=1.
func axeScript(t *testing.T) string {
	t.Helper()
	path := os.Getenv("FOREWARN_AXE")
	if path == "" {
		home, _ := os.UserHomeDir()
		path = filepath.Join(home, ".cache", "forewarn", "axe-core-"+axeVersion, "axe.min.js")
	}
	script, err := os.ReadFile(path)
	if err != nil {
		if os.Getenv("FOREWARN_REQUIRE_BROWSER") == "1" {
			t.Fatalf("axe-core: %v (scripts/deps.sh fetches it)", err)
		}
		t.Logf("no accessibility check: %v (scripts/deps.sh fetches axe-core)", err)
		return ""
	}
	return string(script)
}

// axeViolation is what the check reports of one broken rule.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []string `json:"target"`
	} `json:"nodes"`
}

// checkFits fails the test if the page is wider than the window: on a
// laptop's screen nothing may need scrolling sideways.
func (b *browser) checkFits(what string) {
	b.t.Helper()
	if over := eval[int](b, "document.documentElement.scrollWidth - window.innerWidth"); over > 0 {
		b.t.Errorf("%s is %d px wider than the window (%d px)", what, over, eval[int](b, "window.innerWidth"))
	}
}

// checkAccessibility runs axe-core's WCAG 2 A and AA rules (2.0 to 2.2)
// on the page as it is and fails the test on every violation: missing
// labels and names, contrast below AA, misused ARIA, and the like.
func (b *browser) checkAccessibility(what string) {
	b.t.Helper()
	b.checkFits(what)
	script := axeScript(b.t)
	if script == "" {
		return
	}
	if !eval[bool](b, "typeof window.axe === 'object'") {
		eval[bool](b, script+";true")
	}
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	violations, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](
		`axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]}}).then(r => r.violations)`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("accessibility check of %s: %v", what, err)
	}
	for _, v := range violations {
		var where []string
		for _, n := range v.Nodes {
			where = append(where, strings.Join(n.Target, " "))
		}
		if len(where) > 5 {
			where = append(where[:5], fmt.Sprintf("and %d more", len(v.Nodes)-5))
		}
		b.t.Errorf("accessibility of %s: %s (%s): %s; at %s", what, v.ID, v.Impact, v.Help, strings.Join(where, ", "))
	}
}
