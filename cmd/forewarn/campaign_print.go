package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/plural"
)

// campaignTable prints campaigns, one line each.
var campaignTable = table[*forewarn.Campaign]{
	header: []string{"ID", "TYPE", "STATE", "SCOPES", "DONE/TOTAL", "EVENTS-IN-FLIGHT", "ESTIMATED-END"},
	row: func(c *forewarn.Campaign) []string {
		p := progressOf(c)
		return []string{
			c.ID, string(c.Spec.Type), string(c.State), scopesCell(c.Scopes),
			fmt.Sprintf("%d/%d", p.done, p.total), strconv.Itoa(p.inFlight), timeCell(c.EstimatedEnd),
		}
	},
}

// scopeProgressTable prints a campaign's progress, one line per scope.
var scopeProgressTable = table[forewarn.ScopeProgress]{
	header: []string{"SCOPE", "UDS", "DONE", "EVENT", "WAITING", "NO-NOTICE"},
	row: func(p forewarn.ScopeProgress) []string {
		return []string{
			p.Scope, strconv.Itoa(p.UpdateDomains), strconv.Itoa(min(p.Done, p.UpdateDomains)),
			p.Event, p.Waiting, yesNo(p.NoNotice),
		}
	},
}

// progress sums a campaign's progress over its scopes.
type progress struct {
	done, skipped, total, inFlight int
	noNotice                       []string
}

func progressOf(c *forewarn.Campaign) progress {
	var p progress
	for _, s := range c.Scopes {
		p.done += min(s.Done, s.UpdateDomains)
		p.skipped += len(s.Skipped)
		p.total += s.UpdateDomains
		if s.Event != "" {
			p.inFlight++
		}
		if s.NoNotice {
			p.noNotice = append(p.noNotice, s.Scope)
		}
	}
	return p
}

// printCampaign writes a campaign: its JSON, or a summary, a table of its
// scopes and a warning naming the scopes that get no notice.
func printCampaign(w io.Writer, format outputFormat, c *forewarn.Campaign) error {
	return printCampaignNotice(w, format, c, noticeCell(c.Spec.Notice))
}

// printCampaignNotice is printCampaign with the summary's notice as given.
func printCampaignNotice(w io.Writer, format outputFormat, c *forewarn.Campaign, notice string) error {
	if format == outputJSON {
		return writeJSON(w, c)
	}
	if err := writeCampaignSummary(w, c, notice); err != nil {
		return err
	}
	if err := scopeProgressTable.write(w, c.Scopes); err != nil {
		return err
	}
	if err := writeSkipped(w, c); err != nil {
		return err
	}
	if p := progressOf(c); len(p.noNotice) > 0 {
		_, err := fmt.Fprintf(w, "\nNO NOTICE: %s %s not enabled Scheduled Events (no VM has asked for its events): %s events start at once, without notice.\n",
			strings.Join(p.noNotice, ", "), plural.Word(len(p.noNotice), "has", "have"), plural.Word(len(p.noNotice), "its", "their"))
		return err
	}
	return nil
}

// writeSkipped lists the update domains a campaign walked past without
// maintaining them, and why.
func writeSkipped(w io.Writer, c *forewarn.Campaign) error {
	if progressOf(c).skipped == 0 {
		return nil
	}
	if _, err := fmt.Fprintln(w, "\nSKIPPED (walked past, not maintained):"); err != nil {
		return err
	}
	for _, p := range c.Scopes {
		for i := 0; i < len(p.Skipped); {
			// A run of update domains skipped for one reason takes a line.
			first, last := p.Skipped[i], p.Skipped[i]
			for i++; i < len(p.Skipped) && p.Skipped[i].Reason == first.Reason &&
				p.Skipped[i].UpdateDomain == last.UpdateDomain+1; i++ {
				last = p.Skipped[i]
			}
			domains := fmt.Sprintf("update domain %d", first.UpdateDomain)
			if last != first {
				domains = fmt.Sprintf("update domains %d-%d", first.UpdateDomain, last.UpdateDomain)
			}
			if _, err := fmt.Fprintf(w, "  %s %s: %s\n", p.Scope, domains, first.Reason); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeCampaignSummary writes a campaign's fields, one a line, then a
// blank line; notice is the line of its notice.
func writeCampaignSummary(w io.Writer, c *forewarn.Campaign, notice string) error {
	p := progressOf(c)
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	for _, f := range [][2]string{
		{"ID:", c.ID},
		{"Type:", string(c.Spec.Type)},
		{"State:", string(c.State)},
		{"Description:", c.Description},
		{"Duration:", durationCell(c.DurationInSeconds)},
		{"Notice:", notice},
		{"Parallel scopes:", strconv.Itoa(max(c.Spec.ParallelScopes, 1))},
		{"Progress:", progressCell(p)},
		{"Created:", timeCell(c.CreatedAt)},
		{"Estimated end:", timeCell(c.EstimatedEnd)},
		{"Ended:", timeCell(c.EndedAt)},
	} {
		writeRow(tw, f[:])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}

// progressCell says how far a campaign is: "3/4 update domains done (1
// skipped), 1 event in flight".
func progressCell(p progress) string {
	skipped := ""
	if p.skipped > 0 {
		skipped = fmt.Sprintf(" (%d skipped)", p.skipped)
	}
	return fmt.Sprintf("%d/%d update domains done%s, %s in flight",
		p.done, p.total, skipped, plural.Count(p.inFlight, "event", "events"))
}

// noticeCell shows a campaign's notice: "the type's minimum" for zero,
// which a campaign started by an earlier release may hold.
func noticeCell(d forewarn.Duration) string {
	if d == 0 {
		return "the type's minimum"
	}
	return d.String()
}

// scopesCell names the scopes of a campaign, at most three, then how many
// more there are.
func scopesCell(scopes []forewarn.ScopeProgress) string {
	const shown = 3
	names := make([]string, 0, shown+1)
	for i, s := range scopes {
		if i == shown {
			names = append(names, fmt.Sprintf("+%d", len(scopes)-shown))
			break
		}
		names = append(names, s.Scope)
	}
	return listCell(names)
}
