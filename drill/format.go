package drill

import (
	"cmp"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/plural"
)

// Verdict is the report's result in a few words.
func (r *Report) Verdict() string {
	failed, total := r.Failed()
	switch {
	case r.Incomplete != "":
		return "INCOMPLETE: the drill could not run to its end"
	case failed > 0:
		return fmt.Sprintf("FAILED: %d of %s failed", failed, plural.Count(total, "check", "checks"))
	case !r.Passed:
		return "FAILED: stopped after " + plural.Count(total, "check", "checks")
	}
	return "PASSED: " + plural.Count(total, "check", "checks")
}

// WriteText writes the report as tables, for a terminal.
func (r *Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "drill %q %s (%s, %s)\n", r.Drill, r.Verdict(), r.File, roundDuration(r.Ended.Sub(r.Started)))
	if r.Incomplete != "" {
		fmt.Fprintf(w, "%s\n", r.Incomplete)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tEVENT\tTYPE\tVM\tSEEN AFTER\tAPPROVED AFTER\tOUTCOME\tHEALTH")
	for i, s := range r.Steps {
		step := fmt.Sprintf("%d %s", i+1, s.Name)
		if len(s.Rows) == 0 {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t%s\t-\n", step, cmp.Or(s.Skipped, "no event"))
		}
		for _, row := range s.Rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", step, shortID(row.Event), eventOf(s, row.Event).Type,
				row.VM, durationCell(row.SeenAfter), durationCell(row.ApprovedAfter), row.Outcome, healthCell(row.Health))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nevents that started unapproved: %s\n", cmp.Or(strings.Join(r.unapproved(), ", "), "none"))
	fmt.Fprintf(w, "VMs that never polled: %s\n", cmp.Or(strings.Join(r.neverPolled(), ", "), "none"))
	if withdrawn := r.withdrawn(); len(withdrawn) > 0 {
		fmt.Fprintf(w, "cancelled when the drill stopped: %s\n", strings.Join(withdrawn, ", "))
	}
	if failures := r.failures(); len(failures) > 0 {
		fmt.Fprintln(w, "\nfailed checks:")
		for _, f := range failures {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

// WriteMarkdown writes the report as a Markdown document, for a CI job's
// summary or a game day's notes.
func (r *Report) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "# Drill %s: %s\n\n", mdEscape(r.Drill), r.Verdict())
	fmt.Fprintf(w, "File `%s`, started %s, took %s.\n\n", r.File, r.Started.UTC().Format(time.RFC3339), roundDuration(r.Ended.Sub(r.Started)))
	if r.Incomplete != "" {
		fmt.Fprintf(w, "%s.\n\n", mdEscape(r.Incomplete))
	}
	for i, s := range r.Steps {
		fmt.Fprintf(w, "## Step %d: %s\n\n", i+1, mdEscape(s.Name))
		if s.Skipped != "" {
			fmt.Fprintf(w, "Not run: %s.\n\n", s.Skipped)
			continue
		}
		if len(s.Rows) > 0 {
			fmt.Fprintln(w, "| Event | Type | VM | Seen after | Approved after | Outcome | Health |")
			fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
			for _, row := range s.Rows {
				fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s | %s |\n", row.Event, eventOf(s, row.Event).Type, mdEscape(row.VM),
					durationCell(row.SeenAfter), durationCell(row.ApprovedAfter), mdEscape(row.Outcome), mdEscape(healthCell(row.Health)))
			}
			fmt.Fprintln(w)
		}
		if len(s.Rows) == 0 && len(s.Checks) == 0 {
			fmt.Fprintln(w, "No event, nothing to check.")
		}
		for _, c := range s.Checks {
			mark := "PASS"
			switch {
			case c.Error:
				mark = "**ERROR**"
			case !c.Passed:
				mark = "**FAIL**"
			}
			fmt.Fprintf(w, "- %s %s: %s\n", mark, mdEscape(c.Name), mdEscape(c.Detail))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Events that started unapproved: %s.  \nVMs that never polled: %s.\n",
		cmp.Or(strings.Join(r.unapproved(), ", "), "none"), cmp.Or(strings.Join(r.neverPolled(), ", "), "none"))
	if withdrawn := r.withdrawn(); len(withdrawn) > 0 {
		fmt.Fprintf(w, "Cancelled when the drill stopped: %s.\n", strings.Join(withdrawn, ", "))
	}
	fmt.Fprintln(w)
	return nil
}

// WriteJSON writes the report as JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// The JUnit XML format, as CI systems read it: a suite per step, a test
// case per check.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Time     float64      `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name      string      `xml:"name,attr"`
		Tests     int         `xml:"tests,attr"`
		Failures  int         `xml:"failures,attr"`
		Errors    int         `xml:"errors,attr"`
		Skipped   int         `xml:"skipped,attr"`
		Time      float64     `xml:"time,attr"`
		Timestamp string      `xml:"timestamp,attr,omitempty"`
		Cases     []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Failure   *junitMessage `xml:"failure,omitempty"`
		Error     *junitMessage `xml:"error,omitempty"`
		Skipped   *junitMessage `xml:"skipped,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitMessage struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
)

// WriteJUnit writes the report as JUnit XML: one test suite per step, one
// test case per check.
func (r *Report) WriteJUnit(w io.Writer) error {
	failed, total := r.Failed()
	doc := junitSuites{Name: r.Drill, Tests: total, Failures: failed, Time: r.Ended.Sub(r.Started).Seconds()}
	for i, s := range r.Steps {
		suite := junitSuite{Name: fmt.Sprintf("%s: step %d: %s", r.Drill, i+1, s.Name), Time: s.Ended.Sub(s.Started).Seconds()}
		if !s.Started.IsZero() {
			suite.Timestamp = s.Started.UTC().Format("2006-01-02T15:04:05")
		}
		class := fmt.Sprintf("drill.%s.step%d", r.Drill, i+1)
		if s.Skipped != "" {
			suite.Skipped, suite.Tests = 1, 1
			doc.Skipped++
			doc.Tests++
			suite.Cases = append(suite.Cases, junitCase{Name: s.Name, Classname: class,
				Skipped: &junitMessage{Message: s.Skipped}})
		}
		for _, c := range s.Checks {
			tc := junitCase{Name: c.Name, Classname: class}
			switch {
			case c.Passed:
				tc.SystemOut = c.Detail
			case c.Error:
				tc.Error = &junitMessage{Message: c.Detail, Text: c.Detail}
				suite.Errors++
				doc.Errors++
				doc.Failures--
			default:
				tc.Failure = &junitMessage{Message: c.Detail, Text: c.Detail}
				suite.Failures++
			}
			suite.Tests++
			suite.Cases = append(suite.Cases, tc)
		}
		doc.Suites = append(doc.Suites, suite)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// failures lists the failed checks, each with its step.
func (r *Report) failures() []string {
	var out []string
	for i, s := range r.Steps {
		for _, c := range s.Checks {
			if !c.Passed {
				out = append(out, fmt.Sprintf("step %d (%s): %s: %s", i+1, s.Name, c.Name, c.Detail))
			}
		}
	}
	return out
}

// unapproved lists the events that started unapproved, in every step.
func (r *Report) unapproved() []string {
	var out []string
	for _, s := range r.Steps {
		out = append(out, s.Unapproved...)
	}
	return out
}

// withdrawn lists what the drill cancelled when a step stopped early.
func (r *Report) withdrawn() []string {
	var out []string
	for _, s := range r.Steps {
		out = append(out, s.Withdrawn...)
	}
	return out
}

// neverPolled lists the VMs that did not poll during a step, once each.
func (r *Report) neverPolled() []string {
	var out []string
	seen := map[forewarn.Key]bool{}
	for _, s := range r.Steps {
		for _, vm := range s.NeverPolled {
			if k := forewarn.KeyOf(vm); !seen[k] {
				seen[k] = true
				out = append(out, vm)
			}
		}
	}
	return out
}

// eventOf finds an event of a step.
func eventOf(s *StepReport, id string) *EventRow {
	for _, e := range s.Events {
		if e.ID == id {
			return e
		}
	}
	return &EventRow{ID: id}
}

// shortID shortens an event id for a table: the first block of a UUID.
func shortID(id string) string {
	if i := strings.IndexByte(id, '-'); i > 0 {
		return id[:i]
	}
	return id
}

func durationCell(d *forewarn.Duration) string {
	if d == nil {
		return "-"
	}
	return roundDuration(time.Duration(*d))
}

func healthCell(h *HealthResult) string {
	switch {
	case h == nil:
		return "-"
	case h.Passed:
		return "ok after " + roundDuration(time.Duration(h.After))
	}
	return "failed (" + plural.Count(h.Attempts, "attempt", "attempts") + ")"
}

// mdEscape keeps text from breaking a Markdown table or being read as
// HTML, which the job summaries of CI systems render.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "*", `\*`, "_", `\_`,
		"<", "&lt;", ">", "&gt;", "&", "&amp;").Replace(s)
}
