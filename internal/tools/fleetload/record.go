package main

import "time"

// record is what one poller saw, kept for the soak's checks: every regular
// GET answered 200 or 304, with the document it showed, and every approval
// answered 200.
type record struct {
	polls []pollSeen
	docs  [][]seenEvent // the distinct documents, in the order they came
	ids   map[string]string
	// approved are the events this VM approved and was answered 200 for.
	approved []approval
}

// pollSeen is one answered GET: it was sent no earlier than sent and
// answered no later than answered (Unix nanoseconds, wall clock, so that
// they compare with the server's timestamps), and showed docs[doc].
type pollSeen struct {
	sent, answered int64
	doc            int32
}

// seenEvent is an event as a document showed it.
type seenEvent struct {
	id     string
	status string
}

// approval is an approval answered 200.
type approval struct {
	id       string
	answered time.Time
}

func newRecord() record { return record{ids: make(map[string]string)} }

// addDoc keeps the events of a new document. Event ids and statuses are
// interned: a VM sees the same few events in many documents.
func (r *record) addDoc(events []event) {
	doc := make([]seenEvent, len(events))
	for i, ev := range events {
		id, ok := r.ids[ev.EventId]
		if !ok {
			id = ev.EventId
			r.ids[id] = id
		}
		doc[i] = seenEvent{id: id, status: internStatus(ev.EventStatus)}
	}
	r.docs = append(r.docs, doc)
}

// internStatus returns the constant of a known status, so that each
// document does not hold a copy of it.
func internStatus(s string) string {
	switch s {
	case "Scheduled":
		return "Scheduled"
	case "Started":
		return "Started"
	}
	return s
}

// addPoll notes a GET sent at sent and answered at answered, which showed
// the last document kept. It does nothing before the first document.
func (r *record) addPoll(sent, answered time.Time) {
	if len(r.docs) == 0 {
		return
	}
	r.polls = append(r.polls, pollSeen{sent: sent.UnixNano(), answered: answered.UnixNano(), doc: int32(len(r.docs) - 1)})
}

// status returns the status docs[doc] shows for the event id, or "".
func (r *record) status(doc int32, id string) string {
	for _, e := range r.docs[doc] {
		if e.id == id {
			return e.status
		}
	}
	return ""
}
