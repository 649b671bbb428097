package main

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/forewarn/forewarn"
)

// eventCheck is the soak's account of the events: whether every VM saw
// each event of its scope, as it was, whenever it polled during the
// event's time in the document (SPEC.md: the events of a scope are shown
// to every VM of the scope).
type eventCheck struct {
	// Events are those of the layout's scopes the admin API reports, in
	// flight or in the history; Cancelled of them were cancelled.
	Events     int `json:"events"`
	InFlight   int `json:"in_flight_at_end"`
	Cancelled  int `json:"cancelled"`
	ByCampaign int `json:"by_campaigns"`
	// Pairs are (event, VM of its scope). A pair is Due if the VM sent a
	// poll at least the lag after the event was created (or started) and
	// had its answer before it started (or ended): the VM must have seen
	// the event so, Scheduled (or Started), or it Lost it. Seen pairs saw
	// the event at least once.
	Pairs int `json:"pairs"`
	Due   int `json:"pairs_due"`
	Seen  int `json:"pairs_seen"`
	Lost  int `json:"pairs_lost"`
	// Stale counts answers behind what the scope's documents had already
	// shown: a poll sent after any VM of the scope had been answered with
	// the event Scheduled (or Started), and answered before it started (or
	// ended), that did not show it so. The scope's VMs share one document,
	// whose incarnation only grows, so this needs no lag.
	Stale int `json:"stale_answers"`
	// Hit are the pairs of the VMs an event hits; HitDueScheduled were due
	// while the event was Scheduled, and HitSeenScheduled saw it so.
	Hit              int `json:"hit_pairs"`
	HitDueScheduled  int `json:"hit_pairs_due_scheduled"`
	HitSeenScheduled int `json:"hit_pairs_seen_scheduled"`
	// NotDue pairs had no poll inside the event's time: it was shorter
	// than an interval and the lag, or the VMs were not polling.
	NotDue int `json:"pairs_not_due"`
	// Unknown are event ids the VMs saw that the admin API does not report.
	Unknown int `json:"unknown_events_seen"`
	// FirstSeen runs from an event's creation to the answer of the first
	// poll that showed it, for each pair seen.
	FirstSeen latency `json:"first_seen_after_creation"`
	// LateMs is the longest a poll was sent after a change and still
	// showed the state before: how late the documents were, at least.
	LateMs  float64  `json:"document_late_ms"`
	Samples []string `json:"error_samples,omitempty"`
}

// failed reports whether an event was lost, shown stale, or unknown.
func (c *eventCheck) failed() bool { return c.Lost > 0 || c.Stale > 0 || c.Unknown > 0 }

// note keeps an error's message if it is among the first few.
func (c *eventCheck) note(format string, args ...any) {
	if len(c.Samples) < maxSamples {
		c.Samples = append(c.Samples, fmt.Sprintf(format, args...))
	}
}

// checkEvents checks what the pollers of layout l saw against the events
// the server reports; lag is how long a change may take to reach the
// documents.
func checkEvents(pollers []*poller, l layout, events map[string]*forewarn.Event, lag time.Duration) eventCheck {
	var c eventCheck
	scopes := make(map[forewarn.Key]int, l.scopes)
	for s := range l.scopes {
		scopes[forewarn.KeyOf(l.scopeName(s))] = s
	}
	var firstSeen []time.Duration
	for _, e := range events {
		s, ok := scopes[forewarn.KeyOf(e.Scope)]
		if !ok {
			continue // the host's own VM's scope, say
		}
		c.count(e)
		scope := pollers[s*l.vms : (s+1)*l.vms]
		sps := spans(e)
		shown := firstShown(scope, e, sps, lag.Nanoseconds())
		for _, p := range scope {
			if d, seen := c.pair(p, e, sps, shown, lag.Nanoseconds()); seen {
				firstSeen = append(firstSeen, d)
			}
		}
	}
	c.FirstSeen = summarize(firstSeen)
	c.unknown(pollers, events)
	return c
}

// count counts an event of the layout.
func (c *eventCheck) count(e *forewarn.Event) {
	c.Events++
	switch {
	case e.InFlight():
		c.InFlight++
	case e.Outcome == forewarn.Cancelled:
		c.Cancelled++
	}
	if e.Campaign != "" {
		c.ByCampaign++
	}
}

// span is a stretch of an event's time in the document with one status,
// in Unix nanoseconds; to is math.MaxInt64 while it lasts.
type span struct {
	status   string
	from, to int64
}

// spans returns the stretches of e's time in the document: Scheduled from
// its creation, then Started if it started, until it ended.
func spans(e *forewarn.Event) []span {
	end := int64(math.MaxInt64)
	if !e.EndedAt.IsZero() {
		end = e.EndedAt.UnixNano()
	}
	if e.StartedAt.IsZero() {
		return []span{{string(forewarn.Scheduled), e.CreatedAt.UnixNano(), end}}
	}
	started := e.StartedAt.UnixNano()
	return []span{{string(forewarn.Scheduled), e.CreatedAt.UnixNano(), started}, {string(forewarn.Started), started, end}}
}

// seenPolls calls fn for each poll of p that may have shown e: answered
// after its creation, sent before its end and the lag.
func seenPolls(p *poller, e *forewarn.Event, lag int64, fn func(poll pollSeen, status string)) {
	polls := p.rec.polls
	created := e.CreatedAt.UnixNano()
	last := int64(math.MaxInt64)
	if !e.EndedAt.IsZero() {
		last = e.EndedAt.UnixNano() + lag
	}
	for i := sort.Search(len(polls), func(i int) bool { return polls[i].answered >= created }); i < len(polls) && polls[i].sent <= last; i++ {
		fn(polls[i], p.rec.status(polls[i].doc, e.ID))
	}
}

// firstShown returns, for each span of e, when the scope's documents first
// showed e so: the earliest answer to a VM of the scope that showed it
// (Scheduled: at all; Started: Started), or math.MaxInt64.
func firstShown(scope []*poller, e *forewarn.Event, sps []span, lag int64) []int64 {
	shown := make([]int64, len(sps))
	for k := range shown {
		shown[k] = math.MaxInt64
	}
	for _, p := range scope {
		seenPolls(p, e, lag, func(poll pollSeen, status string) {
			for k, sp := range sps {
				if status != "" && (k == 0 || status == sp.status) {
					shown[k] = min(shown[k], poll.answered)
				}
			}
		})
	}
	return shown
}

// pair checks one VM's polls against one event of its scope, and returns
// how long after the event's creation the VM first saw it, if it did.
func (c *eventCheck) pair(p *poller, e *forewarn.Event, sps []span, shown []int64, lag int64) (time.Duration, bool) {
	c.Pairs++
	var first time.Duration
	seen := map[string]bool{}
	seenPolls(p, e, lag, func(poll pollSeen, status string) {
		if status != "" && len(seen) == 0 {
			first = time.Duration(poll.answered - e.CreatedAt.UnixNano())
		}
		if status != "" {
			seen[status] = true
		}
	})
	due := false
	for k, sp := range sps {
		dueHere := c.spanPolls(p, e, sp, shown[k], lag)
		due = due || dueHere
		if dueHere && !seen[sp.status] {
			c.Lost++
			c.note("%s (%v) never saw event %s (%s of %s, created %s, ended %s) %s, though it polled then",
				p.name, p.addr, e.ID, e.Type, e.Scope, e.CreatedAt.Format(time.StampMilli), endText(e), sp.status)
		}
		if k == 0 && e.Hits(p.name) {
			c.HitDueScheduled += b2i(dueHere)
		}
	}
	if e.Hits(p.name) {
		c.Hit++
		c.HitSeenScheduled += b2i(seen[string(forewarn.Scheduled)])
	}
	c.Due += b2i(due)
	c.NotDue += b2i(!due)
	c.Seen += b2i(len(seen) > 0)
	return first, len(seen) > 0
}

// spanPolls checks the polls of p inside span sp of event e, the span's
// status first shown to the scope at shown: those sent after that must
// show it so. It notes how late the others were, and reports whether a
// poll was due: sent at least lag after the span began.
func (c *eventCheck) spanPolls(p *poller, e *forewarn.Event, sp span, shown, lag int64) (due bool) {
	polls := p.rec.polls
	i := sort.Search(len(polls), func(i int) bool { return polls[i].sent >= sp.from })
	for ; i < len(polls) && polls[i].answered <= sp.to; i++ {
		due = due || polls[i].sent-sp.from >= lag
		got := p.rec.status(polls[i].doc, e.ID)
		if got == sp.status {
			continue
		}
		c.LateMs = max(c.LateMs, ms(time.Duration(polls[i].sent-sp.from)))
		if polls[i].sent > shown {
			c.Stale++
			c.note("%s (%v) was shown event %s %s at %s, %.3f s after a VM of its scope was shown it %s",
				p.name, p.addr, e.ID, shownAs(got), time.Unix(0, polls[i].answered).Format(time.StampMilli),
				time.Duration(polls[i].sent-shown).Seconds(), sp.status)
		}
	}
	return due
}

// unknown counts the event ids the pollers saw that the server does not
// report: events it lost from its history or its listing.
func (c *eventCheck) unknown(pollers []*poller, events map[string]*forewarn.Event) {
	unknown := make(map[string]string)
	for _, p := range pollers {
		for id := range p.rec.ids {
			if events[id] == nil {
				unknown[id] = p.name
			}
		}
	}
	c.Unknown = len(unknown)
	for id, vm := range unknown {
		c.note("%s saw event %s, which the admin API does not report", vm, id)
	}
}

// shownAs says how a document showed an event: with a status, or not.
func shownAs(status string) string {
	if status == "" {
		return "not at all"
	}
	return "as " + status
}

// endText says when an event ended, or that it had not.
func endText(e *forewarn.Event) string {
	if e.EndedAt.IsZero() {
		return "still in flight"
	}
	return e.EndedAt.Format(time.StampMilli)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// approvalCheck is the soak's account of the approvals the VMs were
// answered 200 for: each event must have started, no later than the
// answer.
type approvalCheck struct {
	Approvals   int      `json:"approvals"`
	Started     int      `json:"started"`
	Unreflected int      `json:"unreflected"`
	Samples     []string `json:"error_samples,omitempty"`
}

// checkApprovals checks every approval of the pollers against the events.
func checkApprovals(pollers []*poller, events map[string]*forewarn.Event) approvalCheck {
	var c approvalCheck
	for _, p := range pollers {
		for _, a := range p.rec.approved {
			c.Approvals++
			e := events[a.id]
			switch {
			case e == nil:
				c.fail("%s approved event %s (200), which the admin API does not report", p.name, a.id)
			case e.StartedAt.IsZero() || e.StartedAt.After(a.answered):
				c.fail("%s approved event %s (200 at %s), which shows status %s, started %q", p.name, a.id,
					a.answered.Format(time.StampMilli), e.Status, e.StartedAt.Format(time.StampMilli))
			default:
				c.Started++
			}
		}
	}
	return c
}

func (c *approvalCheck) fail(format string, args ...any) {
	c.Unreflected++
	if len(c.Samples) < maxSamples {
		c.Samples = append(c.Samples, fmt.Sprintf(format, args...))
	}
}

// campaignCheck compares a campaign's progress with its events: each
// update domain done that has VMs had one event, and each scope's event
// in flight is one more.
type campaignCheck struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	State     string `json:"state"`
	Domains   int    `json:"update_domains_done"`
	Expected  int    `json:"events_expected"`
	Collected int    `json:"events_reported"`
}

// checkCampaign counts what campaign c's progress says it created, in
// layout l, against the events collected of it.
func checkCampaign(c *forewarn.Campaign, l layout, collected int) campaignCheck {
	r := campaignCheck{ID: c.ID, Type: string(c.Spec.Type), State: string(c.State), Collected: collected}
	for _, p := range c.Scopes {
		r.Domains += p.Done
		r.Expected += min(p.Done, l.vms) + b2i(p.Event != "") // update domains from vms on have no VMs
	}
	return r
}

func (r campaignCheck) ok() bool { return r.Expected == r.Collected }

// growth bounds how much serve may grow from before the soak to after it.
type growth struct {
	goroutines    int     // more goroutines allowed, at least
	goroutinesPct float64 // or this percentage of those before, if more
	heapPct       float64 // heap in use: this percentage more
	heapMB        float64 // plus this
}

// growthCheck is the comparison of serve's runtime before and after.
type growthCheck struct {
	Before          settled `json:"before"`
	After           settled `json:"after"`
	GoroutinesLimit int     `json:"goroutines_limit"`
	HeapLimitMB     float64 `json:"heap_inuse_limit_mb"`
	OK              bool    `json:"ok"`
}

// check compares after with before.
func (g growth) check(before, after settled) growthCheck {
	c := growthCheck{Before: before, After: after,
		GoroutinesLimit: before.Goroutines + max(g.goroutines, int(float64(before.Goroutines)*g.goroutinesPct/100)),
		HeapLimitMB:     mb((before.HeapInuseMB*(1+g.heapPct/100) + g.heapMB) * (1 << 20))}
	c.OK = after.Goroutines <= c.GoroutinesLimit && after.HeapInuseMB <= c.HeapLimitMB
	return c
}
