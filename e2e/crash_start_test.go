package e2e

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/forewarn/forewarn"
)

// The crash test judges each start by what the test itself did, not by
// what the server says of it: when it asked for the event, which bounds the
// NotBefore the notice rules allow, and which approvals it sent, and when.

// crashDeeds is what the test did about one event.
type crashDeeds struct {
	// askedAt is when the test sent the request that made the event (its
	// operation, or its campaign's start): the event is no older.
	askedAt time.Time
	// approveSent is when the test first sent an approval of the event,
	// answered or not, and approvers who it approved it as (VM names
	// lower-cased, "admin"); approvedAt is when the first acknowledged
	// approval was answered: the event had started by then.
	approveSent time.Time
	approvers   map[string]bool
	approvedAt  time.Time
	noticeFault bool // a NotBefore short of the notice was reported
}

// crashCampaignKey is the key of the requests that start campaigns in
// crashAsks; a user operation's is its VM's name, lower-cased.
const crashCampaignKey = "campaign"

// crashAsks are the requests sent that may have made an event or a
// campaign the test does not know the ID of: in flight, or whose answer
// was lost with a killed server. Each one's send time is a lower bound
// of what it made.
type crashAsks map[string][]time.Time

// earliest returns the first request for key.
func (a crashAsks) earliest(key string) (time.Time, bool) {
	if len(a[key]) == 0 {
		return time.Time{}, false
	}
	return slices.MinFunc(a[key], time.Time.Compare), true
}

// done forgets a request whose answer said what it made, or that it made
// nothing.
func (a crashAsks) done(key string, sent time.Time) {
	if i := slices.IndexFunc(a[key], sent.Equal); i >= 0 {
		a[key] = slices.Delete(a[key], i, i+1)
	}
}

// asking notes a request for key (a VM's name, or crashCampaignKey) about
// to be sent, and returns when it was.
func (l *crashLedger) asking(key string) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	key = strings.ToLower(key)
	l.asks[key] = append(l.asks[key], now)
	return now
}

// askRefused notes that the request for key sent at sent was refused
// (4xx): it made nothing.
func (l *crashLedger) askRefused(key string, sent time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asks.done(strings.ToLower(key), sent)
}

// observeAsked records the event the request for a VM sent at sent made.
func (l *crashLedger) observeAsked(m crashMark, vm string, sent time.Time, e *forewarn.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asks.done(strings.ToLower(vm), sent)
	l.event(e.ID, e.Scope, "the admin API").askedAt = sent
	l.see(m, e)
}

// observeCampaignAsked records the campaign the request sent at sent
// started.
func (l *crashLedger) observeCampaignAsked(m crashMark, sent time.Time, c *forewarn.Campaign) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asks.done(crashCampaignKey, sent)
	l.campaignAsked[c.ID] = sent
	l.seeCampaign(m, c)
}

// campaignAsk returns when the test asked for campaign id, from the
// requests whose answers were lost if it was not told the ID; a campaign
// it never asked for is a fault. l.mu is held.
func (l *crashLedger) campaignAsk(id string) time.Time {
	if at, ok := l.campaignAsked[id]; ok {
		return at
	}
	at, ok := l.asks.earliest(crashCampaignKey)
	if !ok {
		l.faultf("campaign %s: the test never started it", id)
	}
	l.campaignAsked[id] = at
	return at
}

// approving notes an approval of event id as who (a VM's name, or
// "admin") about to be sent.
func (l *crashLedger) approving(id, who string) {
	now := time.Now()
	l.update(id, func(ev *crashEvent) {
		if ev.approveSent.IsZero() {
			ev.approveSent = now
		}
		if ev.approvers == nil {
			ev.approvers = map[string]bool{}
		}
		ev.approvers[strings.ToLower(who)] = true
	})
}

// bindAsk finds when the test asked for an event it learns of from the
// admin API without having been told of it: at the earliest request of
// its VM, or of campaigns, whose answer was lost. An event no request of
// the test can have made is a fault. l.mu is held.
func (l *crashLedger) bindAsk(ev *crashEvent, e *forewarn.Event) {
	switch {
	case !ev.askedAt.IsZero():
	case e.Campaign != "":
		ev.askedAt = l.campaignAsk(e.Campaign)
	case len(e.Resources) != 1:
		l.faultf("user operation %s (scope %s) names %v, not one VM", e.ID, e.Scope, e.Resources)
	default:
		at, ok := l.asks.earliest(strings.ToLower(e.Resources[0]))
		if !ok {
			l.faultf("event %s (%s of %s) is no operation the test asked for", e.ID, e.Type, e.Resources[0])
		}
		ev.askedAt = at
	}
}

// least returns the earliest an event may start unapproved: its NotBefore
// as first seen, and no sooner than its type's notice after the test asked
// for it.
func (ev *crashEvent) least(typ forewarn.EventType) time.Time {
	t := ev.notBefore
	if asked := ev.askedAt; !asked.IsZero() && asked.Add(crashNotice(typ)).After(t) {
		t = asked.Add(crashNotice(typ))
	}
	return t
}

// checkNotBefore checks the NotBefore of an event, as the admin API shows
// it and as first seen anywhere, against the notice its type gets from
// when the test asked for it. l.mu is held.
func (l *crashLedger) checkNotBefore(ev *crashEvent, e *forewarn.Event) {
	if ev.askedAt.IsZero() || ev.noticeFault {
		return
	}
	least := ev.askedAt.Add(crashNotice(e.Type))
	for _, nb := range []time.Time{ev.notBefore, e.NotBefore} {
		if !nb.IsZero() && nb.Before(least) {
			ev.noticeFault = true
			l.faultf("event %s (%s, scope %s): NotBefore %v, short of the %v notice from when the test asked for it, %v",
				e.ID, e.Type, e.Scope, nb, crashNotice(e.Type), ev.askedAt)
			return
		}
	}
}

// checkStart checks an event the admin API shows started: no earlier than
// it may unapproved, unless the test had sent an approval of it before; no
// later than an approval of it was acknowledged; approved, if the server
// says so, as the test approved it. l.mu is held.
func (l *crashLedger) checkStart(ev *crashEvent, e *forewarn.Event) {
	least := ev.least(e.Type)
	approvedFirst := !ev.approveSent.IsZero() && !e.StartedAt.Before(ev.approveSent)
	if e.StartedAt.Before(least) && !approvedFirst {
		l.faultf("event %s (%s, scope %s) started at %v, before %v (NotBefore seen %v, asked for at %v), "+
			"and the test had sent no approval of it (first sent %v)",
			e.ID, e.Type, e.Scope, e.StartedAt, least, ev.notBefore, ev.askedAt, ev.approveSent)
	}
	if !ev.approvedAt.IsZero() && e.StartedAt.After(ev.approvedAt) {
		l.faultf("event %s (%s, scope %s): an approval of it was acknowledged at %v, but it started at %v: the approval was lost",
			e.ID, e.Type, e.Scope, ev.approvedAt, e.StartedAt)
	}
	if e.ApprovedBy != "" && !ev.approvers[strings.ToLower(e.ApprovedBy)] {
		l.faultf("event %s (%s, scope %s) shows ApprovedBy %q, but the test approved it as %v",
			e.ID, e.Type, e.Scope, e.ApprovedBy, slices.Sorted(maps.Keys(ev.approvers)))
	}
}

// checkRecord checks that what the admin API showed of an event's start
// and approval does not change: a new EndsAt is its impact started again,
// a new approval an approval recorded twice. l.mu is held.
func (l *crashLedger) checkRecord(ev *crashEvent, e *forewarn.Event) {
	switch {
	case e.EndsAt.IsZero():
	case ev.endsAt.IsZero():
		ev.endsAt = e.EndsAt
	case !ev.endsAt.Equal(e.EndsAt):
		l.faultf("event %s (scope %s) started twice: its impact was to end at %v, then at %v", e.ID, e.Scope, ev.endsAt, e.EndsAt)
	}
	switch {
	case e.ApprovedBy == "":
	case ev.approvedBy == "":
		ev.approvedBy, ev.approvedOn = e.ApprovedBy, e.ApprovedAt
	case !forewarn.SameName(ev.approvedBy, e.ApprovedBy) || !ev.approvedOn.Equal(e.ApprovedAt):
		l.faultf("event %s (scope %s) approved twice: by %s at %v, then by %s at %v",
			e.ID, e.Scope, ev.approvedBy, ev.approvedOn, e.ApprovedBy, e.ApprovedAt)
	}
}

// sawEventsIn checks the events of a VM's document against the documents
// of its scope seen before: an event that left the document, at a lower
// incarnation, must not be back. l.mu is held.
func (l *crashLedger) sawEventsIn(vm, scope string, d crashDoc) {
	key := strings.ToLower(scope)
	if l.inDoc[key] == nil {
		l.inDoc[key] = map[string]*crashEvent{}
	}
	inc := d.DocumentIncarnation
	shown := map[string]bool{}
	for _, de := range d.Events {
		ev := l.event(de.EventId, scope, "the document of "+vm)
		shown[ev.id] = true
		if ev.goneInc != 0 && inc >= ev.goneInc {
			l.faultf("event %s (scope %s) is back in the document of %s at incarnation %d (%s), after it left it at incarnation %d",
				ev.id, scope, vm, inc, de.EventStatus, ev.goneInc)
		}
		ev.docInc = max(ev.docInc, inc)
		l.inDoc[key][ev.id] = ev
	}
	for id, ev := range l.inDoc[key] {
		if !shown[id] && ev.docInc < inc {
			if ev.goneInc == 0 || inc < ev.goneInc {
				ev.goneInc = inc
			}
			delete(l.inDoc[key], id)
		}
	}
}
