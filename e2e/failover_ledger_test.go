package e2e

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/forewarn/forewarn"
)

// failoverProbe notes what one replica's metadata endpoint answered: how
// long its GETs and POSTs kept failing for a VM, and whether a document ever
// went back to an older state than one it answered before.
type failoverProbe struct {
	name        string
	gets, posts failoverSeries

	mu     sync.Mutex
	last   map[string]document // by VM asked as: the newest document answered
	status map[string]int      // by event: the furthest status answered
	faults []string
}

// The order of an event's states on one endpoint.
const (
	failoverScheduled = 1
	failoverStarted   = 2
	failoverGone      = 3
)

// newFailoverProbe returns the probe of a replica, named for messages.
func newFailoverProbe(name string) *failoverProbe {
	return &failoverProbe{name: name, last: map[string]document{}, status: map[string]int{}}
}

// fault notes a broken invariant.
func (p *failoverProbe) fault(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults = append(p.faults, fmt.Sprintf(format, args...))
}

// problems returns the broken invariants noted.
func (p *failoverProbe) problems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.faults)
}

// document checks a document answered to vm against the one before: its
// incarnation must not go down, nor stay the same if the events changed,
// and no event may go back to a state it had left.
func (p *failoverProbe) document(vm string, doc document) {
	p.mu.Lock()
	defer p.mu.Unlock()
	prev, seen := p.last[vm]
	switch {
	case seen && doc.DocumentIncarnation < prev.DocumentIncarnation:
		p.faults = append(p.faults, fmt.Sprintf("as %s: DocumentIncarnation %d after %d", vm, doc.DocumentIncarnation, prev.DocumentIncarnation))
		return
	case seen && doc.DocumentIncarnation == prev.DocumentIncarnation && !slices.Equal(doc.Events, prev.Events):
		p.faults = append(p.faults, fmt.Sprintf("as %s: DocumentIncarnation %d for %+v and for %+v", vm, doc.DocumentIncarnation, prev.Events, doc.Events))
	}
	p.last[vm] = doc
	shown := map[string]bool{}
	for _, e := range doc.Events {
		shown[e.EventId] = true
	}
	for _, e := range prev.Events {
		if !shown[e.EventId] {
			p.status[e.EventId] = failoverGone
		}
	}
	for _, e := range doc.Events {
		state := failoverScheduled
		if e.EventStatus == string(forewarn.Started) {
			state = failoverStarted
		}
		if state < p.status[e.EventId] {
			p.faults = append(p.faults, fmt.Sprintf("as %s: event %s %s again in incarnation %d", vm, e.EventId, e.EventStatus, doc.DocumentIncarnation))
		}
		p.status[e.EventId] = max(p.status[e.EventId], state)
	}
}

// failoverSeries measures the requests to one replica, per VM asking.
type failoverSeries struct {
	mu   sync.Mutex
	byVM map[string]*failoverWindows
}

// note records one request of vm, sent at start and answered at end.
func (s *failoverSeries) note(vm string, start, end time.Time, ok bool, what string) {
	s.mu.Lock()
	if s.byVM == nil {
		s.byVM = map[string]*failoverWindows{}
	}
	w := s.byVM[vm]
	if w == nil {
		w = &failoverWindows{}
		s.byVM[vm] = w
	}
	s.mu.Unlock()
	w.note(start, end, ok, what)
}

// result returns the longest run of failures any VM met, counting one still
// going on as lasting until end, the slowest success, and the failures.
func (s *failoverSeries) result(end time.Time) (longest, slowest time.Duration, failures []failoverFailure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.byVM {
		l, sl, f := w.result(end)
		longest, slowest, failures = max(longest, l), max(slowest, sl), append(failures, f...)
	}
	slices.SortFunc(failures, func(a, b failoverFailure) int { return a.at.Compare(b.at) })
	return longest, slowest, failures
}

// failoverWindows measures a series of requests to one replica: the
// longest time from a failed request to the next one that succeeded, and
// the slowest success.
type failoverWindows struct {
	mu               sync.Mutex
	failing          time.Time // when the current run of failures began
	longest, slowest time.Duration
	failures         []failoverFailure
}

// failoverFailure is a request that failed: when it was answered, and
// what.
type failoverFailure struct {
	at   time.Time
	what string
}

// note records one request, sent at start and answered at end.
func (w *failoverWindows) note(start, end time.Time, ok bool, what string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !ok {
		w.failures = append(w.failures, failoverFailure{end, what})
		if w.failing.IsZero() {
			w.failing = start
		}
		return
	}
	w.slowest = max(w.slowest, end.Sub(start))
	if !w.failing.IsZero() && start.After(w.failing) {
		w.longest = max(w.longest, start.Sub(w.failing))
		w.failing = time.Time{}
	}
}

// result returns the longest run of failures, counting one still going on
// as lasting until end, the slowest success, and the failures.
func (w *failoverWindows) result(end time.Time) (longest, slowest time.Duration, failures []failoverFailure) {
	w.mu.Lock()
	defer w.mu.Unlock()
	longest = w.longest
	if !w.failing.IsZero() {
		longest = max(longest, end.Sub(w.failing))
	}
	return longest, w.slowest, slices.Clone(w.failures)
}

// failoverBefore returns what failed before t: answered before it.
func failoverBefore(failures []failoverFailure, t time.Time) []string {
	var out []string
	for _, f := range failures {
		if f.at.Before(t) {
			out = append(out, f.what)
		}
	}
	return out
}

// failoverLedger is what the test was told and saw of the events, checked
// against the history at the end.
type failoverLedger struct {
	mu        sync.Mutex
	notBefore map[string]time.Time // seen while Scheduled
	startedAt map[string]time.Time // first seen Started
	ops       []string             // acknowledged user operations
	approvals map[string]failoverApproval
	unsure    map[string]bool // events an approval of which failed: it may have committed
	faults    []string
	notes     []string
	opErrors  []failoverFailure
}

// failoverApproval is an acknowledged approval: by which VM, answered when.
type failoverApproval struct {
	vm string
	at time.Time
}

// newFailoverLedger returns an empty ledger.
func newFailoverLedger() *failoverLedger {
	return &failoverLedger{notBefore: map[string]time.Time{}, startedAt: map[string]time.Time{},
		approvals: map[string]failoverApproval{}, unsure: map[string]bool{}}
}

// scheduled notes the NotBefore of a Scheduled event; it must not change.
func (l *failoverLedger) scheduled(id string, notBefore time.Time) {
	if prev, ok := l.notBefore[id]; ok && !prev.Equal(notBefore) {
		l.faults = append(l.faults, fmt.Sprintf("event %s: NotBefore %v, then %v", id, prev, notBefore))
	} else if !ok {
		l.notBefore[id] = notBefore
	}
}

// document notes the NotBefore of the Scheduled events of a document.
func (l *failoverLedger) document(doc document) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range doc.Events {
		if nb, err := time.Parse(http.TimeFormat, e.NotBefore); err == nil && e.EventStatus == string(forewarn.Scheduled) {
			l.scheduled(e.EventId, nb)
		}
	}
}

// observe notes the NotBefore of Scheduled events and the StartedAt of
// Started ones; an event's StartedAt must not change (it started twice).
func (l *failoverLedger) observe(events []*forewarn.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range events {
		switch prev, ok := l.startedAt[e.ID]; {
		case e.Status == forewarn.Scheduled:
			l.scheduled(e.ID, e.NotBefore)
		case ok && !prev.Equal(e.StartedAt):
			l.faults = append(l.faults, fmt.Sprintf("event %s started at %v, then at %v", e.ID, prev, e.StartedAt))
		case !ok:
			l.startedAt[e.ID] = e.StartedAt
		}
	}
}

// operated notes an acknowledged user operation.
func (l *failoverLedger) operated(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ops = append(l.ops, id)
}

// opFailed notes a user operation that failed other than with a conflict.
func (l *failoverLedger) opFailed(at time.Time, what string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.opErrors = append(l.opErrors, failoverFailure{at, what})
}

// approved notes an acknowledged approval.
func (l *failoverLedger) approved(id, vm string, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.approvals[id] = failoverApproval{vm, at}
}

// ambiguous notes an approval that failed with a 5xx or no answer.
func (l *failoverLedger) ambiguous(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.unsure[id] = true
}

// refused notes an approval refused with a 4xx: a fault unless an earlier
// one of the same event failed, and may have committed.
func (l *failoverLedger) refused(id, what string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.unsure[id] {
		l.notes = append(l.notes, "approval refused after a failed one: "+what)
		return
	}
	l.faults = append(l.faults, "approval refused: "+what)
}

// check returns what the history shows wrong: an event in it twice, not
// completed, started before its NotBefore without approval, or at another
// time than first seen; an acknowledged operation or approval missing from
// it, or an approval it does not show; a campaign that did not make one
// event per update domain of each scope (uds).
func (l *failoverLedger) check(history []*forewarn.Event, campaign string, uds map[string]int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	faults := slices.Clone(l.faults)
	byID := map[string]*forewarn.Event{}
	perScope := map[string]int{}
	checked := 0
	for _, e := range history {
		if byID[e.ID] != nil {
			faults = append(faults, fmt.Sprintf("event %s twice in the history", e.ID))
		}
		byID[e.ID] = e
		if e.Campaign == campaign {
			perScope[e.Scope]++
		}
		switch nb, ok := l.notBefore[e.ID]; {
		case e.Outcome != forewarn.Completed || e.StartedAt.IsZero():
			faults = append(faults, fmt.Sprintf("event %s in the history: %s, started at %v", e.ID, e.Outcome, e.StartedAt))
		case e.ApprovedBy != "" && !e.ApprovedAt.Equal(e.StartedAt):
			faults = append(faults, fmt.Sprintf("event %s approved at %v but started at %v", e.ID, e.ApprovedAt, e.StartedAt))
		case ok && e.ApprovedBy == "" && e.StartedAt.Before(nb):
			faults = append(faults, fmt.Sprintf("event %s started at %v, before its NotBefore %v, unapproved", e.ID, e.StartedAt, nb))
		case ok:
			checked++
		}
		if s, ok := l.startedAt[e.ID]; ok && !s.Equal(e.StartedAt) {
			faults = append(faults, fmt.Sprintf("event %s seen started at %v, in the history at %v", e.ID, s, e.StartedAt))
		}
	}
	for _, id := range l.ops {
		if byID[id] == nil {
			faults = append(faults, fmt.Sprintf("acknowledged operation %s missing from the history", id))
		}
	}
	for id, a := range l.approvals {
		if e := byID[id]; e == nil || (e.ApprovedBy != a.vm && e.StartedAt.After(a.at)) {
			faults = append(faults, fmt.Sprintf("approval of %s by %s acknowledged at %v; history: %+v", id, a.vm, a.at, e))
		}
	}
	if !maps.Equal(perScope, uds) {
		faults = append(faults, fmt.Sprintf("campaign events per scope in the history: %v, want %v", perScope, uds))
	}
	l.notes = append(l.notes, fmt.Sprintf("history: %d events, %d checked against the NotBefore seen, %d acknowledged operations, %d acknowledged approvals",
		len(history), checked, len(l.ops), len(l.approvals)))
	return faults
}

// lines returns the notes for the log.
func (l *failoverLedger) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.notes)
}

// opFailures returns the user operations that failed other than with a
// conflict.
func (l *failoverLedger) opFailures() []failoverFailure {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.opErrors)
}
