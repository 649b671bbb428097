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

// failoverLedger is what the test did, was told and saw of the events,
// checked against the history at the end. Starts are judged by what the
// test did: when it asked for each event, which bounds its NotBefore, and
// which approvals it sent, and when.
type failoverLedger struct {
	mu        sync.Mutex
	notBefore map[string]time.Time // seen while Scheduled
	startedAt map[string]time.Time // first seen Started
	record    map[string]failoverRecord
	ops       []string             // acknowledged user operations
	asked     map[string]time.Time // when the test asked for each acknowledged operation
	// lost are the operations whose answer was lost or failed, by VM:
	// when they were sent. They may have made an event.
	lost      map[string][]time.Time
	campaigns map[string]time.Time // when the test asked for each campaign
	approvals map[string]failoverApproval
	// approveSent is when the test first sent an approval of each event,
	// approvers who it sent them as.
	approveSent map[string]time.Time
	approvers   map[string]map[string]bool
	unsure      map[string]bool // events an approval of which failed: it may have committed
	faults      []string
	notes       []string
	opErrors    []failoverFailure
}

// failoverApproval is an acknowledged approval: by which VM, answered when.
type failoverApproval struct {
	vm string
	at time.Time
}

// failoverRecord is what the admin API first showed of an event's start and
// approval; it must not change.
type failoverRecord struct {
	endsAt     time.Time
	approvedBy string
	approvedAt time.Time
}

// failoverNotice is the notice of a Reboot, the type of every event of the
// test, at --dev's time scale (60).
const failoverNotice = 15 * time.Minute / 60

// newFailoverLedger returns an empty ledger.
func newFailoverLedger() *failoverLedger {
	return &failoverLedger{notBefore: map[string]time.Time{}, startedAt: map[string]time.Time{},
		record: map[string]failoverRecord{}, asked: map[string]time.Time{}, lost: map[string][]time.Time{},
		campaigns: map[string]time.Time{}, approvals: map[string]failoverApproval{},
		approveSent: map[string]time.Time{}, approvers: map[string]map[string]bool{}, unsure: map[string]bool{}}
}

// scheduled notes the NotBefore of a Scheduled event; it must not change.
func (l *failoverLedger) scheduled(id string, notBefore time.Time) {
	if prev, ok := l.notBefore[id]; ok && !prev.Equal(notBefore) {
		l.faults = append(l.faults, fmt.Sprintf("event %s: NotBefore %v, then %v", id, prev, notBefore))
	} else if !ok {
		l.notBefore[id] = notBefore
	}
}

// document notes the NotBefore of the Scheduled events of a document; one
// that does not parse is a fault.
func (l *failoverLedger) document(doc document) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range doc.Events {
		if e.EventStatus != string(forewarn.Scheduled) {
			continue
		}
		nb, err := http.ParseTime(e.NotBefore)
		if err != nil {
			l.faults = append(l.faults, fmt.Sprintf("event %s: Scheduled with NotBefore %q: %v", e.EventId, e.NotBefore, err))
			continue
		}
		l.scheduled(e.EventId, nb)
	}
}

// observe notes the NotBefore of Scheduled events and the StartedAt of
// Started ones; an event's StartedAt, EndsAt and approval must not change
// (it started twice).
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
		l.sawRecord(e)
	}
}

// sawRecord notes the EndsAt and approval of an event the admin API shows
// and checks they are the ones first shown. l.mu is held.
func (l *failoverLedger) sawRecord(e *forewarn.Event) {
	prev, ok := l.record[e.ID]
	now := failoverRecord{e.EndsAt, e.ApprovedBy, e.ApprovedAt}
	switch {
	case !ok:
		l.record[e.ID] = now
	case !prev.endsAt.IsZero() && !now.endsAt.IsZero() && !prev.endsAt.Equal(now.endsAt):
		l.faults = append(l.faults, fmt.Sprintf("event %s started twice: its impact was to end at %v, then at %v", e.ID, prev.endsAt, now.endsAt))
	case prev.approvedBy != "" && (now.approvedBy != prev.approvedBy || !now.approvedAt.Equal(prev.approvedAt)):
		l.faults = append(l.faults, fmt.Sprintf("event %s approved twice: by %s at %v, then by %s at %v",
			e.ID, prev.approvedBy, prev.approvedAt, now.approvedBy, now.approvedAt))
	default:
		if prev.endsAt.IsZero() {
			prev.endsAt = now.endsAt
		}
		if prev.approvedBy == "" {
			prev.approvedBy, prev.approvedAt = now.approvedBy, now.approvedAt
		}
		l.record[e.ID] = prev
	}
}

// operated notes an acknowledged user operation, asked for at sent.
func (l *failoverLedger) operated(id string, sent time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ops = append(l.ops, id)
	l.asked[id] = sent
}

// campaign notes an acknowledged campaign, asked for at sent.
func (l *failoverLedger) campaign(id string, sent time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.campaigns[id] = sent
}

// opFailed notes a user operation on vm, sent at sent, that failed other
// than with a conflict: it may have made an event all the same.
func (l *failoverLedger) opFailed(vm string, sent, at time.Time, what string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lost[vm] = append(l.lost[vm], sent)
	l.opErrors = append(l.opErrors, failoverFailure{at, what})
}

// opUnanswered notes a user operation on vm, sent at sent, whose answer
// the end of the test cut off: it may have made an event all the same.
func (l *failoverLedger) opUnanswered(vm string, sent time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lost[vm] = append(l.lost[vm], sent)
}

// operations returns how many user operations were acknowledged.
func (l *failoverLedger) operations() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.ops)
}

// approving notes an approval of event id as vm about to be sent.
func (l *failoverLedger) approving(id, vm string, sent time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.approveSent[id]; !ok {
		l.approveSent[id] = sent
		l.approvers[id] = map[string]bool{}
	}
	l.approvers[id][vm] = true
}

// approved notes an acknowledged approval, answered at at; the first of
// an event is kept: the event had started by then.
func (l *failoverLedger) approved(id, vm string, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.approvals[id]; !ok {
		l.approvals[id] = failoverApproval{vm, at}
	}
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
// completed, with a NotBefore short of its notice from when the test asked
// for it, started before that unless the test had sent an approval of it,
// started at another time or approved by another VM than the test saw, or
// approved by a VM the test did not approve it as; an acknowledged
// operation or approval missing from it, or an event that started after an
// approval of it was acknowledged; an event the test did not ask for; a
// campaign that did not make one event per update domain of each scope
// (uds). Every event the test did not approve is checked against the
// NotBefore it saw, and there must be at least minUnapproved of those.
func (l *failoverLedger) check(history []*forewarn.Event, campaign string, uds map[string]int, minUnapproved int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	faults := slices.Clone(l.faults)
	byID := map[string]*forewarn.Event{}
	perScope := map[string]int{}
	unapproved := 0
	for _, e := range history {
		if byID[e.ID] != nil {
			faults = append(faults, fmt.Sprintf("event %s twice in the history", e.ID))
		}
		byID[e.ID] = e
		if e.Campaign == campaign {
			perScope[e.Scope]++
		}
		if e.Outcome != forewarn.Completed || e.StartedAt.IsZero() {
			faults = append(faults, fmt.Sprintf("event %s in the history: %s, started at %v", e.ID, e.Outcome, e.StartedAt))
			continue
		}
		if e.ApprovedBy != "" && !e.ApprovedAt.Equal(e.StartedAt) {
			faults = append(faults, fmt.Sprintf("event %s approved at %v but started at %v", e.ID, e.ApprovedAt, e.StartedAt))
		}
		faults = append(faults, l.checkStart(e)...)
		if sent, ok := l.approveSent[e.ID]; !ok || e.StartedAt.Before(sent) {
			unapproved++
		}
	}
	for _, id := range l.ops {
		if byID[id] == nil {
			faults = append(faults, fmt.Sprintf("acknowledged operation %s missing from the history", id))
		}
	}
	for id, a := range l.approvals {
		if e := byID[id]; e == nil || e.StartedAt.After(a.at) {
			faults = append(faults, fmt.Sprintf("approval of %s by %s acknowledged at %v, but the history shows it started later, or not: %+v", id, a.vm, a.at, e))
		}
	}
	if !maps.Equal(perScope, uds) {
		faults = append(faults, fmt.Sprintf("campaign events per scope in the history: %v, want %v", perScope, uds))
	}
	if unapproved < minUnapproved {
		faults = append(faults, fmt.Sprintf("%d events of the history started unapproved, checked against their NotBefore; want at least %d", unapproved, minUnapproved))
	}
	l.notes = append(l.notes, fmt.Sprintf("history: %d events, %d started unapproved and checked against the NotBefore seen, %d acknowledged operations, %d acknowledged approvals",
		len(history), unapproved, len(l.ops), len(l.approvals)))
	return faults
}

// checkStart returns what is wrong with the start of an event of the
// history, judged by what the test did and saw. l.mu is held.
func (l *failoverLedger) checkStart(e *forewarn.Event) []string {
	var faults []string
	fault := func(format string, args ...any) { faults = append(faults, fmt.Sprintf(format, args...)) }
	asked, ok := l.askedFor(e)
	if !ok {
		fault("event %s (%s of %v, campaign %q) is nothing the test asked for", e.ID, e.Type, e.Resources, e.Campaign)
	}
	nb, seen := l.notBefore[e.ID]
	if seen && nb.Before(asked.Add(failoverNotice)) {
		fault("event %s: NotBefore %v, short of the %v notice from when the test asked for it, %v", e.ID, nb, failoverNotice, asked)
	}
	least := asked.Add(failoverNotice)
	if nb.After(least) {
		least = nb
	}
	sent, approved := l.approveSent[e.ID]
	switch {
	case approved && !e.StartedAt.Before(sent):
	case e.StartedAt.Before(least):
		fault("event %s started at %v, before %v (NotBefore seen %v, asked for at %v), and the test had sent no approval of it (first sent %v)",
			e.ID, e.StartedAt, least, nb, asked, sent)
	case !seen:
		fault("event %s started unapproved at %v, but no NotBefore of it was seen to check that against", e.ID, e.StartedAt)
	}
	if e.ApprovedBy != "" && !l.approvers[e.ID][e.ApprovedBy] {
		fault("event %s shows ApprovedBy %q, but the test approved it as %v", e.ID, e.ApprovedBy, slices.Sorted(maps.Keys(l.approvers[e.ID])))
	}
	if s, ok := l.startedAt[e.ID]; ok && !s.Equal(e.StartedAt) {
		fault("event %s seen started at %v, in the history at %v", e.ID, s, e.StartedAt)
	}
	if r, ok := l.record[e.ID]; ok && ((!r.endsAt.IsZero() && !e.EndsAt.IsZero() && !r.endsAt.Equal(e.EndsAt)) ||
		(r.approvedBy != "" && (r.approvedBy != e.ApprovedBy || !r.approvedAt.Equal(e.ApprovedAt)))) {
		fault("event %s started twice: seen ending at %v, approved by %q at %v; in the history ending at %v, approved by %q at %v",
			e.ID, r.endsAt, r.approvedBy, r.approvedAt, e.EndsAt, e.ApprovedBy, e.ApprovedAt)
	}
	return faults
}

// askedFor returns when the test asked for an event: its operation, or
// its campaign; for an operation whose answer was lost, the earliest such
// of its VM. False if the test asked for nothing that can have made it.
// l.mu is held.
func (l *failoverLedger) askedFor(e *forewarn.Event) (time.Time, bool) {
	if e.Campaign != "" {
		at, ok := l.campaigns[e.Campaign]
		return at, ok
	}
	if at, ok := l.asked[e.ID]; ok {
		return at, true
	}
	if len(e.Resources) != 1 || len(l.lost[e.Resources[0]]) == 0 {
		return time.Time{}, false
	}
	return slices.MinFunc(l.lost[e.Resources[0]], time.Time.Compare), true
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
