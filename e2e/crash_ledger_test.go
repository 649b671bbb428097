package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/forewarn/forewarn"
)

// crashListing is what check read from the admin API.
type crashListing struct {
	scopes    []*forewarn.Scope
	events    []*forewarn.Event
	history   []*forewarn.Event
	campaigns []*forewarn.Campaign
}

// crashEvent is what the test knows of one event. Its uint64 fields are
// ledger sequence numbers, 0 for never, which order what the test saw.
type crashEvent struct {
	id, scope string
	userOp    bool
	typ       forewarn.EventType // "" until the admin API showed it
	known     uint64             // first seen or acknowledged
	started   uint64             // first seen started
	startedVM uint64             // first seen started by a VM
	ended     uint64             // first seen in the history
	final     *forewarn.Event    // as the history first showed it
	approved  uint64             // an approval of it was acknowledged
	cancelled uint64             // its cancel was acknowledged
	notBefore time.Time          // the first NotBefore seen
	startedAt time.Time          // the first StartedAt seen
	// approveAs is who the test approves the event as once approveAt has
	// come: "vm" (any VM of its scope), "admin", or "" for no one.
	approveAs string
	approveAt time.Time

	// What the test itself did, which the server's answers are judged
	// by (crash_start_test.go).
	crashDeeds
	// What the server showed first, which must not change: a start, an
	// approval or an impact recorded anew is an event started twice.
	endsAt     time.Time
	approvedBy string
	approvedOn time.Time
	// docInc is the highest incarnation of a VM's document that showed
	// the event, goneInc the lowest above one that did that did not.
	docInc, goneInc int64
}

// crashCampaign is what the test knows of one campaign.
type crashCampaign struct {
	known, finished uint64
	done            int // the most update domains seen done, over every scope
	doneSeen        uint64
}

// crashMark is what had been seen when a request was sent, which its answer
// is held to. The admin API reads the store, so its answers are held to
// everything seen. The metadata endpoint serves what its server published
// after each commit, a moment after the admin API can read it, so a VM's
// answers are held to what VMs saw and to what anyone saw before the
// server was last killed.
type crashMark struct {
	seq     uint64           // the ledger's sequence number
	restart uint64           // for a VM: the sequence number at the last kill
	floors  map[string]int64 // the least incarnation of each scope
	vm      bool
}

// startedBefore reports whether the answer's event was seen started before.
func (m crashMark) startedBefore(ev *crashEvent) bool {
	if m.vm {
		return crashSeen(ev.startedVM, m.seq) || crashSeen(ev.started, m.restart)
	}
	return crashSeen(ev.started, m.seq)
}

// endedBefore reports whether the answer's event was seen ended before.
func (m crashMark) endedBefore(ev *crashEvent) bool {
	if m.vm {
		return crashSeen(ev.ended, m.restart)
	}
	return crashSeen(ev.ended, m.seq)
}

// crashSeen reports whether what was seen at seq (0: never) was seen by
// before.
func crashSeen(seq, before uint64) bool { return seq != 0 && seq <= before }

// crashLedger records what the servers acknowledged and showed, across
// restarts, and the faults found; it is shared by the workers and the test.
type crashLedger struct {
	mu          sync.Mutex
	rng         *rand.Rand
	seq         uint64
	events      map[string]*crashEvent
	campaigns   map[string]*crashCampaign
	incarnation map[string]int64 // the highest seen, by scope
	shown       map[string]int64 // the highest a VM saw, by scope
	// restart and atRestart are the sequence number and the incarnations
	// when the server was last killed.
	restart   uint64
	atRestart map[string]int64
	docs      map[string]string // the events each document showed, by scope/incarnation
	// inDoc are the events the VMs' documents show, by scope.
	inDoc map[string]map[string]*crashEvent
	asks  crashAsks
	// campaignAsked is when the test sent the request that started each
	// campaign (a lower bound, for one whose answer was lost).
	campaignAsked map[string]time.Time
	faults        []string
}

func newCrashLedger(rng *rand.Rand) *crashLedger {
	return &crashLedger{rng: rng, events: map[string]*crashEvent{}, campaigns: map[string]*crashCampaign{},
		incarnation: map[string]int64{}, shown: map[string]int64{}, atRestart: map[string]int64{},
		docs: map[string]string{}, inDoc: map[string]map[string]*crashEvent{}, asks: crashAsks{},
		campaignAsked: map[string]time.Time{}}
}

// mark returns the mark of an admin API request.
func (l *crashLedger) mark() crashMark {
	l.mu.Lock()
	defer l.mu.Unlock()
	return crashMark{seq: l.seq, floors: maps.Clone(l.incarnation)}
}

// markVM returns the mark of a request of a VM of scope.
func (l *crashLedger) markVM(scope string) crashMark {
	l.mu.Lock()
	defer l.mu.Unlock()
	floor := max(l.shown[scope], l.atRestart[scope])
	return crashMark{seq: l.seq, restart: l.restart, floors: map[string]int64{scope: floor}, vm: true}
}

// killed notes that the server was killed: the next one starts from what
// its store holds, everything seen so far.
func (l *crashLedger) killed() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.restart, l.atRestart = l.seq, maps.Clone(l.incarnation)
}

// next returns a new sequence number; l.mu is held.
func (l *crashLedger) next() uint64 {
	l.seq++
	return l.seq
}

// fault records a fault found by a worker.
func (l *crashLedger) fault(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.faultf(format, args...)
}

// faultf records a fault; l.mu is held.
func (l *crashLedger) faultf(format string, args ...any) {
	l.faults = append(l.faults, fmt.Sprintf(format, args...))
}

// takeFaults returns the faults found since the last call.
func (l *crashLedger) takeFaults() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	f := l.faults
	l.faults = nil
	return f
}

// event returns the record of an event, new if it was not known; who says
// who showed it in scope. l.mu is held.
func (l *crashLedger) event(id, scope, who string) *crashEvent {
	ev := l.events[id]
	if ev == nil {
		ev = &crashEvent{id: id, scope: scope, known: l.next()}
		l.events[id] = ev
	}
	if !forewarn.SameName(ev.scope, scope) {
		l.faultf("event %s of scope %s: %s shows it in scope %s", id, ev.scope, who, scope)
	}
	return ev
}

// observe records an event an admin API answer showed, in flight or in the
// history.
func (l *crashLedger) observe(m crashMark, e *forewarn.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.see(m, e)
}

// see is observe with l.mu held.
func (l *crashLedger) see(m crashMark, e *forewarn.Event) {
	ev := l.event(e.ID, e.Scope, "the admin API")
	ev.userOp = e.Campaign == ""
	ev.typ = e.Type
	l.bindAsk(ev, e)
	if e.InFlight() {
		l.inFlight(m, ev)
	}
	l.checkNotBefore(ev, e)
	l.checkRecord(ev, e)
	if !e.StartedAt.IsZero() {
		l.sawStarted(ev, e.StartedAt, false)
		l.checkStart(ev, e)
	}
	switch {
	case e.Outcome == forewarn.Cancelled && (ev.started != 0 || ev.approved != 0):
		l.faultf("event %s (scope %s) was cancelled after it started or its approval was acknowledged: %+v", e.ID, e.Scope, e)
	case e.Outcome == forewarn.Completed && e.StartedAt.IsZero():
		l.faultf("event %s (scope %s) completed without a start: %+v", e.ID, e.Scope, e)
	case e.InFlight() && e.Status == forewarn.Scheduled:
		l.sawScheduled(m, ev, e.NotBefore)
	}
	switch {
	case e.InFlight():
	case ev.ended == 0:
		ev.ended, ev.final = l.next(), e
	case e.Outcome != ev.final.Outcome || !e.StartedAt.Equal(ev.final.StartedAt) || !e.EndedAt.Equal(ev.final.EndedAt):
		l.faultf("event %s (scope %s) ended twice: the history showed %s at %v (started %v), then %s at %v (started %v)",
			e.ID, e.Scope, ev.final.Outcome, ev.final.EndedAt, ev.final.StartedAt, e.Outcome, e.EndedAt, e.StartedAt)
	}
}

// inFlight checks that an event shown in flight had not been seen ended;
// l.mu is held.
func (l *crashLedger) inFlight(m crashMark, ev *crashEvent) {
	if m.endedBefore(ev) {
		l.faultf("event %s (scope %s) is in flight again after it was seen in the history: %+v", ev.id, ev.scope, ev.final)
	}
}

// sawStarted records that an event has started, at a StartedAt if known,
// as a VM saw it or not; l.mu is held.
func (l *crashLedger) sawStarted(ev *crashEvent, at time.Time, byVM bool) {
	if ev.started == 0 {
		ev.started = l.next()
	}
	if byVM && ev.startedVM == 0 {
		ev.startedVM = l.next()
	}
	switch {
	case at.IsZero():
	case ev.startedAt.IsZero():
		ev.startedAt = at
	case !ev.startedAt.Equal(at):
		l.faultf("event %s (scope %s) started twice: StartedAt %v, then %v", ev.id, ev.scope, ev.startedAt, at)
	}
}

// sawScheduled records that an event is Scheduled with a NotBefore, and
// plans its approval when it is new; l.mu is held.
func (l *crashLedger) sawScheduled(m crashMark, ev *crashEvent, notBefore time.Time) {
	switch {
	case m.startedBefore(ev):
		l.faultf("event %s (scope %s) is Scheduled again after it was seen started (StartedAt %v)", ev.id, ev.scope, ev.startedAt)
	case notBefore.IsZero():
		l.faultf("event %s (scope %s) is Scheduled without a NotBefore", ev.id, ev.scope)
	case ev.notBefore.IsZero():
		ev.notBefore = notBefore
		l.plan(ev)
	case !ev.notBefore.Equal(notBefore):
		l.faultf("event %s (scope %s): NotBefore %v, then %v", ev.id, ev.scope, ev.notBefore, notBefore)
	}
}

// plan decides whether and when the test approves a new event: as a VM,
// as the admin, or not at all, at a random moment before its NotBefore.
// l.mu is held.
func (l *crashLedger) plan(ev *crashEvent) {
	now := time.Now()
	if !now.Before(ev.notBefore) {
		return
	}
	switch n := l.rng.IntN(10); {
	case n < 4:
		ev.approveAs = "vm"
	case n < 6:
		ev.approveAs = forewarn.ApprovedByAdmin
	default:
		return
	}
	ev.approveAt = now.Add(time.Duration(l.rng.Int64N(int64(ev.notBefore.Sub(now)))))
}

// crashNotice is the least notice of an event type at crashScale.
func crashNotice(typ forewarn.EventType) time.Duration {
	if typ == forewarn.Redeploy {
		return 10 * time.Minute / crashScale
	}
	return 15 * time.Minute / crashScale
}

// crashDoc is the part of a metadata document the test reads.
type crashDoc struct {
	DocumentIncarnation int64
	Events              []struct{ EventId, EventStatus, NotBefore string }
}

// observeDoc records the document a VM of scope got and returns the
// events the VM should approve now.
func (l *crashLedger) observeDoc(m crashMark, vm, scope, body string) []string {
	var d crashDoc
	err := json.Unmarshal([]byte(body), &d)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.faultf("document of %s: %v: %s", vm, err, body)
		return nil
	}
	l.sawIncarnation(m, vm, scope, d)
	l.sawEventsIn(vm, scope, d)
	var approve []string
	now := time.Now()
	for _, de := range d.Events {
		ev := l.event(de.EventId, scope, "the document of "+vm)
		l.inFlight(m, ev)
		switch de.EventStatus {
		case string(forewarn.Started):
			l.sawStarted(ev, time.Time{}, true)
		case string(forewarn.Scheduled):
			notBefore, err := http.ParseTime(de.NotBefore)
			if err != nil {
				l.faultf("event %s in the document of %s: NotBefore %q: %v", de.EventId, vm, de.NotBefore, err)
				continue
			}
			l.sawScheduled(m, ev, notBefore)
			if ev.approveAs == "vm" && ev.approved == 0 && !now.Before(ev.approveAt) {
				approve = append(approve, ev.id)
			}
		default:
			l.faultf("event %s in the document of %s: EventStatus %q", de.EventId, vm, de.EventStatus)
		}
	}
	return approve
}

// sawIncarnation checks a document's incarnation: not below the mark's
// floor, and with the same events as every other document of the scope
// with that incarnation, also across restarts. l.mu is held.
func (l *crashLedger) sawIncarnation(m crashMark, vm, scope string, d crashDoc) {
	inc := d.DocumentIncarnation
	if inc < m.floors[scope] {
		l.faultf("scope %s: %s got DocumentIncarnation %d after %d was seen", scope, vm, inc, m.floors[scope])
	}
	l.incarnation[scope] = max(l.incarnation[scope], inc)
	l.shown[scope] = max(l.shown[scope], inc)
	var shown []string
	for _, e := range d.Events {
		shown = append(shown, e.EventId+" "+e.EventStatus)
	}
	slices.Sort(shown)
	key, events := fmt.Sprintf("%s/%d", scope, inc), strings.Join(shown, ", ")
	if seen, ok := l.docs[key]; ok && seen != events {
		l.faultf("scope %s: DocumentIncarnation %d showed [%s], then %s got [%s]", scope, inc, seen, vm, events)
	}
	l.docs[key] = events
}

// approved records an acknowledged approval, answered now.
func (l *crashLedger) approved(id string) {
	now := time.Now()
	l.update(id, func(ev *crashEvent) {
		if ev.approved == 0 {
			ev.approved, ev.approvedAt = l.next(), now
		}
	})
}

// cancelled records an acknowledged cancel.
func (l *crashLedger) cancelled(id string) {
	l.update(id, func(ev *crashEvent) {
		if ev.cancelled == 0 {
			ev.cancelled = l.next()
		}
	})
}

// unplan gives up the approval of an event that has ended.
func (l *crashLedger) unplan(id string) {
	l.update(id, func(ev *crashEvent) { ev.approveAs = "" })
}

// update runs fn on a known event, with l.mu held.
func (l *crashLedger) update(id string, fn func(*crashEvent)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ev := l.events[id]; ev != nil {
		fn(ev)
	}
}

// adminDue returns the events the admin should approve now.
func (l *crashLedger) adminDue() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var due []string
	now := time.Now()
	for id, ev := range l.events {
		if ev.approveAs == forewarn.ApprovedByAdmin && ev.approved == 0 && ev.started == 0 &&
			ev.ended == 0 && !now.Before(ev.approveAt) {
			due = append(due, id)
		}
	}
	return due
}

// cancelCandidate returns a Scheduled user operation no one plans to
// approve, or "".
func (l *crashLedger) cancelCandidate(rng *rand.Rand) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var ids []string
	for id, ev := range l.events {
		if ev.userOp && ev.approveAs == "" && !ev.notBefore.IsZero() && ev.started == 0 && ev.ended == 0 {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	slices.Sort(ids)
	return ids[rng.IntN(len(ids))]
}

// seeCampaign is observeCampaign with l.mu held: a campaign's progress
// never goes back, and nothing cancels it.
func (l *crashLedger) seeCampaign(m crashMark, c *forewarn.Campaign) {
	cc := l.campaigns[c.ID]
	if cc == nil {
		cc = &crashCampaign{known: l.next()}
		l.campaigns[c.ID] = cc
		l.campaignAsk(c.ID)
	}
	done := 0
	for _, p := range c.Scopes {
		done += p.Done
		if p.Event != "" {
			l.event(p.Event, p.Scope, "campaign "+c.ID)
		}
	}
	switch {
	case done < cc.done && crashSeen(cc.doneSeen, m.seq):
		l.faultf("campaign %s: %d update domains done, after %d were: %+v", c.ID, done, cc.done, c.Scopes)
	case done > cc.done:
		cc.done, cc.doneSeen = done, l.next()
	}
	switch {
	case c.State == forewarn.CampaignDone && cc.finished == 0:
		cc.finished = l.next()
	case c.State != forewarn.CampaignDone && crashSeen(cc.finished, m.seq):
		l.faultf("campaign %s is %s after it was seen done", c.ID, c.State)
	}
	if c.State == forewarn.CampaignCancelled {
		l.faultf("campaign %s was cancelled; no one cancelled it", c.ID)
	}
}

// campaignCount returns how many campaigns are known.
func (l *crashLedger) campaignCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.campaigns)
}

// verify checks a listing of the admin API against what was acknowledged
// and seen before it: every event and campaign is there, no incarnation
// went down, approvals and cancels took effect.
func (l *crashLedger) verify(m crashMark, got crashListing) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range got.scopes {
		if s.Incarnation < m.floors[s.Name] {
			l.faultf("scope %s: incarnation %d after %d was seen", s.Name, s.Incarnation, m.floors[s.Name])
		}
		l.incarnation[s.Name] = max(l.incarnation[s.Name], s.Incarnation)
	}
	listed := map[string]*forewarn.Event{}
	for _, list := range [][]*forewarn.Event{got.events, got.history} {
		// An event may be in both lists, if it ended between the
		// reads, but not twice in one.
		once := map[string]bool{}
		for _, e := range list {
			if once[e.ID] {
				l.faultf("event %s (scope %s) is listed twice in one listing: %+v", e.ID, e.Scope, e)
			}
			once[e.ID] = true
			l.see(m, e)
			listed[e.ID] = e
		}
	}
	for id, ev := range l.events {
		if crashSeen(ev.known, m.seq) {
			l.verifyEvent(ev, m, listed[id])
		}
	}
	campaigns := map[string]bool{}
	for _, c := range got.campaigns {
		l.seeCampaign(m, c)
		campaigns[c.ID] = true
	}
	for id, cc := range l.campaigns {
		if crashSeen(cc.known, m.seq) && !campaigns[id] {
			l.faultf("campaign %s is lost", id)
		}
	}
}

// verifyEvent checks a known event against the listing: e is the event in
// flight or in the part of the history read, nil if neither. l.mu is held.
func (l *crashLedger) verifyEvent(ev *crashEvent, m crashMark, e *forewarn.Event) {
	switch {
	case e == nil && ev.ended != 0: // seen in the history, older than the part read
	case e == nil:
		l.faultf("event %s (scope %s, NotBefore %v, StartedAt %v) is lost: neither in flight nor in the history",
			ev.id, ev.scope, ev.notBefore, ev.startedAt)
	case crashSeen(ev.approved, m.seq) && e.InFlight() && e.Status != forewarn.Started:
		l.faultf("event %s (scope %s): its approval was acknowledged, but it is %s: %+v", ev.id, ev.scope, e.Status, e)
	case crashSeen(ev.cancelled, m.seq) && e.Outcome != forewarn.Cancelled:
		l.faultf("event %s (scope %s): its cancel was acknowledged, but it is %s%s: %+v", ev.id, ev.scope, e.Status, e.Outcome, e)
	}
}

// pending says which campaigns and events have not finished, or "".
func (l *crashLedger) pending() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var open []string
	for id, cc := range l.campaigns {
		if cc.finished == 0 {
			open = append(open, "campaign "+id)
		}
	}
	for id, ev := range l.events {
		if ev.ended == 0 {
			open = append(open, "event "+id+" of scope "+ev.scope)
		}
	}
	slices.Sort(open)
	return strings.Join(open, ", ")
}

// campaignEvents checks, in the history, that every campaign made exactly
// one event per update domain of each scope, over all of its VMs.
func (l *crashLedger) campaignEvents() {
	l.mu.Lock()
	defer l.mu.Unlock()
	made := map[string][][]string{} // campaign/scope -> resources of each event
	for _, ev := range l.events {
		if e := ev.final; e != nil && e.Campaign != "" {
			made[e.Campaign+"/"+e.Scope] = append(made[e.Campaign+"/"+e.Scope], e.Resources)
		}
	}
	for id := range l.campaigns {
		for _, sc := range crashScopes {
			var want []string
			for _, vm := range crashVMsOf(sc.name) {
				want = append(want, vm.name)
			}
			events := made[id+"/"+sc.name]
			got := slices.Sorted(slices.Values(slices.Concat(events...)))
			if len(events) != sc.uds || !slices.Equal(got, want) {
				l.faultf("campaign %s, scope %s: events over %v, want one per update domain (%d) over %v",
					id, sc.name, events, sc.uds, want)
			}
		}
	}
}

// summary counts the events of the history by how they ended.
func (l *crashLedger) summary() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var completed, cancelled, byVM, byAdmin int
	for _, ev := range l.events {
		switch e := ev.final; {
		case e == nil:
		case e.Outcome == forewarn.Cancelled:
			cancelled++
		case e.ApprovedBy == forewarn.ApprovedByAdmin:
			byAdmin++
			completed++
		case e.ApprovedBy != "":
			byVM++
			completed++
		default:
			completed++
		}
	}
	return fmt.Sprintf("%d events completed (%d approved by a VM, %d by the admin, the others at NotBefore), "+
		"%d cancelled, %d campaigns", completed, byVM, byAdmin, cancelled, len(l.campaigns))
}
