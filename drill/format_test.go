package drill

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// stoppedReport is a report of two steps: the first failed a check and
// was withdrawn, the second did not run.
func stoppedReport() *Report {
	t0 := time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)
	seen := forewarn.Duration(1500 * time.Millisecond)
	return &Report{Drill: "a|b <x&y>", File: "d.yaml", Started: t0, Ended: t0.Add(time.Minute), Steps: []*StepReport{
		{Name: "restart web-0", Kind: Restart, Started: t0, Ended: t0.Add(time.Minute),
			Events: []*EventRow{{ID: "e1-x", Type: forewarn.Reboot, Scope: "web", Resources: []string{"web-0"}, CreatedAt: t0}},
			Rows:   []*VMRow{{Event: "e1-x", VM: "web-0", SeenAfter: &seen, Outcome: "in flight"}},
			Checks: []*Check{
				{Name: "web-0 (scope web) polls", Passed: true, Detail: "polled"},
				{Name: "the step ends within its timeout", Detail: "still in flight"},
			},
			Withdrawn: []string{"event e1-x"}},
		{Name: "wait 1s", Kind: Wait, Skipped: "step 1 (restart web-0) stopped the drill"},
	}}
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := stoppedReport().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`FAILED: 1 of 2 checks failed`,
		"e1     Reboot  web-0  1.5s",
		"cancelled when the drill stopped: event e1-x",
		"step 1 (restart web-0): the step ends within its timeout: still in flight",
		"step 1 (restart web-0) stopped the drill",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, b.String())
		}
	}
}

func TestWriteMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := stoppedReport().WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		`# Drill a\|b &lt;x&amp;y&gt;: FAILED`,
		"| `e1-x` | Reboot | web-0 | 1.5s | - | in flight | - |",
		"- **FAIL** the step ends within its timeout: still in flight",
		"Not run: step 1 (restart web-0) stopped the drill.",
		"Cancelled when the drill stopped: event e1-x.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown report lacks %q:\n%s", want, md)
		}
	}
	if !strings.HasSuffix(md, "\n") {
		t.Error("the Markdown report does not end its last line")
	}
}

func TestWriteJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := stoppedReport().WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if doc.Tests != 3 || doc.Failures != 1 || doc.Skipped != 1 || len(doc.Suites) != 2 {
		t.Errorf("root: %d tests, %d failures, %d skipped, %d suites; want 3, 1, 1, 2", doc.Tests, doc.Failures, doc.Skipped, len(doc.Suites))
	}
	if doc.Errors != 0 {
		t.Errorf("root: %d errors, want 0", doc.Errors)
	}
	tc := doc.Suites[0].Cases[1]
	if tc.Failure == nil || tc.Failure.Message != "still in flight" || tc.Classname != "drill.a|b <x&y>.step1" {
		t.Errorf("failed case %+v", tc)
	}
	if s := doc.Suites[1]; s.Skipped != 1 || s.Cases[0].Skipped == nil {
		t.Errorf("skipped suite %+v", s)
	}
}

// TestWriteJUnitError: a drill that could not run to its end writes an
// error, not a failure of the applications.
func TestWriteJUnitError(t *testing.T) {
	rep := stoppedReport()
	rep.Incomplete = "step 1 (restart web-0): interrupted: context canceled"
	rep.Steps[0].Checks[1] = &Check{Name: "the step runs to its end", Error: true, Detail: "interrupted: context canceled"}
	var b bytes.Buffer
	if err := rep.WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	tc := doc.Suites[0].Cases[1]
	if doc.Errors != 1 || doc.Failures != 0 || tc.Error == nil || tc.Failure != nil {
		t.Errorf("root: %d errors, %d failures; case %+v; want one error and no failure", doc.Errors, doc.Failures, tc)
	}
	if v := rep.Verdict(); !strings.HasPrefix(v, "INCOMPLETE") {
		t.Errorf("verdict %q", v)
	}
}
