package agent

import (
	"context"
	"strings"

	"github.com/forewarn/forewarn/client"
)

// handle passes each event of a new document to its worker, starting
// workers for new events and telling those whose event left the document.
// It runs on Watch's goroutine and never blocks on a hook.
func (a *Agent) handle(ctx context.Context, doc *client.Document) {
	a.log.Debug("document", "incarnation", doc.DocumentIncarnation, "events", len(doc.Events))
	present := map[string]bool{}
	for _, ev := range doc.Events {
		w, tracked := a.workers[ev.EventId]
		if !tracked && !a.relevant(ev) {
			continue
		}
		present[ev.EventId] = true
		if !tracked {
			w = a.startWorker(ctx, ev.EventId, &ev)
		}
		w.offer(update{event: ev, present: true})
	}
	for id, w := range a.workers {
		if !present[id] {
			w.offer(update{})
			delete(a.workers, id)
		}
	}
	if !a.delivered {
		a.delivered = true
		a.resumeGone(ctx, present)
	}
}

// resumeGone finishes the events of the state that left the document
// while the agent was not running.
func (a *Agent) resumeGone(ctx context.Context, present map[string]bool) {
	for _, id := range a.state.ids() {
		st, _ := a.state.get(id)
		if present[id] || !st.Finished.IsZero() {
			continue
		}
		a.startWorker(ctx, id, nil).offer(update{})
	}
}

// relevant reports whether the agent follows an event: it hits this VM, or
// ScopeEvents is set.
func (a *Agent) relevant(ev client.Event) bool {
	return a.cfg.ScopeEvents || ev.Hits(a.vm)
}

// startWorker starts following an event; first is its first view, nil
// for an event known only from the state.
func (a *Agent) startWorker(ctx context.Context, id string, first *client.Event) *worker {
	st, known := a.state.get(id)
	if !known {
		st = eventState{Event: *first, FirstSeen: a.clock.Now(), Hooks: map[string]string{}}
		a.metrics.eventsSeen.WithLabelValues(first.EventType).Inc()
	}
	w := newWorker(a, id, st)
	a.workers[id] = w
	if first == nil {
		delete(a.workers, id) // already gone: nothing more will be offered
	}
	a.wg.Go(func() { w.run(ctx) })
	return w
}

// isLeader reports whether this VM comes first in the event's Resources.
func (a *Agent) isLeader(ev client.Event) bool {
	if len(ev.Resources) == 0 {
		return false
	}
	return client.Event{Resources: ev.Resources[:1]}.Hits(a.vm)
}

// resourcesKey identifies a Resources list, for noticing changes.
func resourcesKey(r []string) string { return strings.Join(r, "\x00") }
