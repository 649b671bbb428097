package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// pollStats is what one poller saw, or all of them once merged.
type pollStats struct {
	get, post   []time.Duration // latencies of the regular GETs and the POSTs
	later       []time.Duration // of the regular GETs but each VM's first
	slowest     []slowRequest   // the slowest regular GETs, slowest first
	answers     map[string]int  // by request kind and status: "GET 304"
	bursts      int
	burstGets   int
	intended429 int
	transport   int // requests with no answer
	unexpected  int // answers that should not have come
	samples     []string
	changes     int // new documents after the first
	events      map[string]bool
	approvals   int
	late        int // approvals refused since the event had ended (400)
	skipped     int // polls too soon after a slow burst
}

func newPollStats() pollStats {
	return pollStats{answers: make(map[string]int), events: make(map[string]bool)}
}

// count counts an answer to a request of the kind what.
func (s *pollStats) count(what string, status int) {
	s.answers[what+" "+strconv.Itoa(status)]++
}

// add adds o's counts to s.
func (s *pollStats) add(o *pollStats) {
	s.get = append(s.get, o.get...)
	s.post = append(s.post, o.post...)
	s.later = append(s.later, o.later...)
	for _, r := range o.slowest {
		s.noteSlow(r)
	}
	for k, n := range o.answers {
		s.answers[k] += n
	}
	maps.Copy(s.events, o.events)
	s.bursts += o.bursts
	s.burstGets += o.burstGets
	s.intended429 += o.intended429
	s.transport += o.transport
	s.unexpected += o.unexpected
	s.changes += o.changes
	s.approvals += o.approvals
	s.late += o.late
	s.skipped += o.skipped
	if room := maxSamples - len(s.samples); room > 0 {
		s.samples = append(s.samples, o.samples[:min(room, len(o.samples))]...)
	}
}

// slowRequest is one of the slowest GETs of a load.
type slowRequest struct {
	VM     string  `json:"vm"`
	Status int     `json:"status"`
	First  bool    `json:"first_of_vm,omitempty"` // the VM's first GET
	Ms     float64 `json:"ms"`
	AtS    float64 `json:"at_s"` // since the load started
}

// keepSlowest is how many of the slowest GETs a result keeps.
const keepSlowest = 5

// noteSlow keeps r if it is among the keepSlowest slowest so far.
func (s *pollStats) noteSlow(r slowRequest) {
	if len(s.slowest) == keepSlowest && r.Ms <= s.slowest[keepSlowest-1].Ms {
		return
	}
	i, _ := slices.BinarySearchFunc(s.slowest, r.Ms, func(e slowRequest, ms float64) int {
		return cmp.Compare(ms, e.Ms) // slowest first
	})
	s.slowest = slices.Insert(s.slowest, i, r)
	if len(s.slowest) > keepSlowest {
		s.slowest = s.slowest[:keepSlowest]
	}
}

// pollResult is what `fleetload poll` measured.
type pollResult struct {
	Mode      string  `json:"mode"`
	VMs       int     `json:"vms"`
	Scopes    int     `json:"scopes"`
	FirstAddr string  `json:"first_address"`
	LastAddr  string  `json:"last_address"`
	IntervalS float64 `json:"interval_s"`
	DurationS float64 `json:"duration_s"`
	// Requests is the regular GETs; Answers counts every answer by request
	// kind (GET, POST, burst GET) and status.
	Requests   int            `json:"requests"`
	Answers    map[string]int `json:"answers"`
	GetLatency latency        `json:"get_latency"`
	// Skipped are the regular GETs left out since they were due less than
	// half an interval after a slow burst: the load fell behind.
	Skipped int `json:"skipped_gets,omitempty"`
	// LaterLatency leaves out each VM's first GET, which enables its scope
	// and may wait for a store write.
	LaterLatency latency       `json:"get_latency_after_first"`
	Slowest      []slowRequest `json:"slowest_gets"`
	PostLatency  latency       `json:"post_latency"`
	Bursts       int           `json:"bursts"`
	BurstGets    int           `json:"burst_requests"`
	Intended429  int           `json:"intended_429"`
	// TransportErrors are requests with no answer; Unexpected answers
	// other than 200 and 304 (and 200 to a POST) outside the bursts, or
	// other than those and 429 in them.
	TransportErrors int      `json:"transport_errors"`
	Unexpected      int      `json:"unexpected_answers"`
	ErrorSamples    []string `json:"error_samples,omitempty"`
	Changes         int      `json:"document_changes_seen"`
	Events          int      `json:"events_seen"`
	Approvals       int      `json:"approvals"`
	// LateApprovals were refused (400) because the event had left the
	// document between the GET and the POST, as a GET after showed.
	LateApprovals int     `json:"late_approvals"`
	TargetMs      float64 `json:"target_p99_ms"`
	Pass          bool    `json:"pass"`
}

// mergePollers adds up what the pollers saw while they polled for the
// time polled.
func mergePollers(o pollOptions, pollers []*poller, polled time.Duration) *pollResult {
	all := newPollStats()
	for _, p := range pollers {
		all.add(&p.stats)
	}
	r := &pollResult{Mode: "poll", VMs: len(pollers), Scopes: o.layout.scopes,
		FirstAddr: pollers[0].addr.String(), LastAddr: pollers[len(pollers)-1].addr.String(),
		IntervalS: o.interval.Seconds(), DurationS: polled.Seconds(),
		Requests: len(all.get), Skipped: all.skipped, Answers: all.answers,
		GetLatency: summarize(all.get), LaterLatency: summarize(all.later), Slowest: all.slowest,
		PostLatency: summarize(all.post),
		Bursts:      all.bursts, BurstGets: all.burstGets, Intended429: all.intended429,
		TransportErrors: all.transport, Unexpected: all.unexpected, ErrorSamples: all.samples,
		Changes: all.changes, Events: len(all.events), Approvals: all.approvals, LateApprovals: all.late,
		TargetMs: ms(o.target)}
	if r.Bursts > 0 && r.Intended429 == 0 {
		r.ErrorSamples = append(r.ErrorSamples, fmt.Sprintf(
			"%d bursts of %d GETs drew no 429: is serve's rate limit off (--rate-limit 0)?", r.Bursts, o.burstSize))
	}
	r.Pass = !r.failed() && r.GetLatency.P99 <= r.TargetMs
	return r
}

// failed reports whether the load saw errors: a request with no answer, an
// unexpected answer, or bursts that drew no 429.
func (r *pollResult) failed() bool {
	return r.TransportErrors > 0 || r.Unexpected > 0 || (r.Bursts > 0 && r.Intended429 == 0)
}

// summary writes the human summary.
func (r *pollResult) summary(w io.Writer) {
	fmt.Fprintf(w, "poll: %d VMs in %d scopes (%s to %s), each every %gs for %gs\n",
		r.VMs, r.Scopes, r.FirstAddr, r.LastAddr, r.IntervalS, r.DurationS)
	fmt.Fprintf(w, "requests: %d GET, %d POST, %d burst GET (%d bursts)\n",
		r.Requests, r.PostLatency.Count, r.BurstGets, r.Bursts)
	if r.Skipped > 0 {
		fmt.Fprintf(w, "skipped:  %d GETs due less than half an interval after a slow burst (the load fell behind)\n", r.Skipped)
	}
	fmt.Fprintf(w, "answers:  %s\n", r.answerList())
	fmt.Fprintf(w, "GET latency:  %s\n", r.GetLatency)
	fmt.Fprintf(w, "GET latency, each VM's first left out: %s\n", r.LaterLatency)
	for _, s := range r.Slowest {
		first := ""
		if s.First {
			first = ", the VM's first"
		}
		fmt.Fprintf(w, "  slow GET: %s ms, %d, %s at %.1f s%s\n", num(s.Ms), s.Status, s.VM, s.AtS, first)
	}
	fmt.Fprintf(w, "POST latency: %s\n", r.PostLatency)
	fmt.Fprintf(w, "campaign: %d document changes seen, %d events, %d approvals (%d too late: 400 for an event gone, as intended)\n",
		r.Changes, r.Events, r.Approvals, r.LateApprovals)
	fmt.Fprintf(w, "errors:   %d transport, %d unexpected answers (429s only in bursts: %d, intended)\n",
		r.TransportErrors, r.Unexpected, r.Intended429)
	for _, s := range r.ErrorSamples {
		fmt.Fprintf(w, "  error: %s\n", s)
	}
	fmt.Fprintf(w, "%s: no error answers but intended 429s, GET p99 at most %s ms\n", mark(r.Pass), num(r.TargetMs))
}

// answerList is the answers by kind and status: "GET 200: 3, GET 304: 9".
func (r *pollResult) answerList() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(r.Answers)) {
		parts = append(parts, fmt.Sprintf("%s: %d", k, r.Answers[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
