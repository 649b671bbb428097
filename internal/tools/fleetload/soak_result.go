package main

import (
	"fmt"
	"io"
	"strings"
)

// soakResult is what `fleetload soak` measured and checked.
type soakResult struct {
	Mode      string  `json:"mode"`
	WarmupS   float64 `json:"warmup_s"`
	DurationS float64 `json:"duration_s"`
	// Poll is the poll load's result, over the warm-up and the soak.
	Poll        *pollResult     `json:"poll"`
	Maintenance maintenance     `json:"maintenance"`
	Events      eventCheck      `json:"events"`
	Approvals   approvalCheck   `json:"approvals"`
	Campaigns   []campaignCheck `json:"campaigns"`
	Growth      growthCheck     `json:"growth"`
	// AdminErrors are answers of the admin API other than the refusals
	// the rules make (maintenance), and requests it did not answer.
	AdminErrors       int      `json:"admin_errors"`
	AdminErrorSamples []string `json:"admin_error_samples,omitempty"`
	Pass              bool     `json:"pass"`
}

// failed reports whether the soak saw an error: an error answer or one
// missing, a lost or stale event, an approval not reflected, a campaign
// whose events do not add up, or growth.
func (r *soakResult) failed() bool {
	return r.Poll.failed() || r.AdminErrors > 0 || r.Events.failed() || r.Approvals.Unreflected > 0 ||
		r.badCampaigns() > 0 || !r.Growth.OK
}

// badCampaigns counts the campaigns whose progress and events disagree.
func (r *soakResult) badCampaigns() int {
	n := 0
	for _, c := range r.Campaigns {
		n += b2i(!c.ok())
	}
	return n
}

// summary writes the human summary.
func (r *soakResult) summary(w io.Writer) {
	fmt.Fprintf(w, "soak: a warm-up of %gs, then %gs\n", r.WarmupS, r.DurationS)
	r.Poll.summary(w)
	m := r.Maintenance
	fmt.Fprintf(w, "maintenance: campaigns one after another, %d started (%s in turn); %d user operations "+
		"(and %d refused as the rules say: %d VM busy, %d scope at its limit), %d cancelled (%d too late)\n",
		len(m.Campaigns), campaignTypeList(), m.Operations, m.Busy+m.Limited, m.Busy, m.Limited, m.Cancelled, m.TooLate)
	r.eventSummary(w)
	a := r.Approvals
	fmt.Fprintf(w, "approvals: %d answered 200, %d of their events started by then, %d not reflected\n",
		a.Approvals, a.Started, a.Unreflected)
	for _, s := range a.Samples {
		fmt.Fprintf(w, "  error: %s\n", s)
	}
	r.campaignSummary(w)
	r.growthSummary(w)
	fmt.Fprintf(w, "admin API: %d errors\n", r.AdminErrors)
	for _, s := range r.AdminErrorSamples {
		fmt.Fprintf(w, "  error: %s\n", s)
	}
	fmt.Fprintf(w, "%s: no lost or stale event, every approval started, campaigns add up, no growth, "+
		"no error answers but intended 429s\n", passFail(r.Pass))
}

// eventSummary writes the events' lines.
func (r *soakResult) eventSummary(w io.Writer) {
	e := r.Events
	fmt.Fprintf(w, "events: %d (%d by campaigns, %d cancelled, %d in flight at the end), %d unknown seen\n",
		e.Events, e.ByCampaign, e.Cancelled, e.InFlight, e.Unknown)
	fmt.Fprintf(w, "  (event, VM of its scope): %d pairs, %d due (polled inside the event's time, the lag after), "+
		"%d seen, %d lost; %d not due\n", e.Pairs, e.Due, e.Seen, e.Lost, e.NotDue)
	fmt.Fprintf(w, "  stale answers (behind what the scope had been shown): %d\n", e.Stale)
	fmt.Fprintf(w, "  the VMs hit: %d pairs, %d due while Scheduled, %d saw it Scheduled\n",
		e.Hit, e.HitDueScheduled, e.HitSeenScheduled)
	fmt.Fprintf(w, "  first seen after creation: %s; a document late by up to %s ms (at least)\n",
		e.FirstSeen, num(e.LateMs))
	for _, s := range e.Samples {
		fmt.Fprintf(w, "  error: %s\n", s)
	}
}

// campaignSummary writes the campaigns' line, and those that do not add up.
func (r *soakResult) campaignSummary(w io.Writer) {
	fmt.Fprintf(w, "campaigns: %d of %d have as many events as their progress counts\n",
		len(r.Campaigns)-r.badCampaigns(), len(r.Campaigns))
	for _, c := range r.Campaigns {
		if !c.ok() {
			fmt.Fprintf(w, "  error: campaign %s (%s, %s): %d update domains done, %d events expected, %d reported\n",
				c.ID, c.Type, c.State, c.Domains, c.Expected, c.Collected)
		}
	}
}

// growthSummary writes serve's runtime before and after.
func (r *soakResult) growthSummary(w io.Writer) {
	g := r.Growth
	fmt.Fprintf(w, "serve after the warm-up: %s\n", g.Before)
	fmt.Fprintf(w, "serve after the soak:    %s\n", g.After)
	fmt.Fprintf(w, "growth: goroutines %d -> %d (at most %d), heap in use %s -> %s MiB (at most %s): %s\n",
		g.Before.Goroutines, g.After.Goroutines, g.GoroutinesLimit,
		num(g.Before.HeapInuseMB), num(g.After.HeapInuseMB), num(g.HeapLimitMB), passFail(g.OK))
}

// String is a settled sample's line.
func (s settled) String() string {
	return fmt.Sprintf("%d goroutines, heap in use %s MiB, RSS %s MiB (least of %d samples over %.1f s, %d GC cycles)",
		s.Goroutines, num(s.HeapInuseMB), num(s.RSSMB), s.Samples, s.WaitedS, s.GCCycles)
}

func campaignTypeList() string {
	names := make([]string, len(campaignTypes))
	for i, t := range campaignTypes {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}
