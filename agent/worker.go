package agent

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/forewarn/forewarn/client"
)

// approveRetry is how long a worker waits to try again an approval that
// failed after the client's own retries.
const approveRetry = 5 * time.Second

// update is a new view of an event: present with its content, or gone.
type update struct {
	event   client.Event
	present bool
}

// worker follows one event: it runs its hooks in order, one at a time,
// and approves it when the policy says so.
type worker struct {
	a   *Agent
	id  string
	st  eventState
	log *slog.Logger

	// last is the last view offered (watch goroutine only).
	last update

	mu      sync.Mutex
	pending []update
	wake    chan struct{}

	retryAt time.Time // a failed approval is tried again then
}

// newWorker returns the worker of an event with its state.
func newWorker(a *Agent, id string, st eventState) *worker {
	return &worker{a: a, id: id, st: st, wake: make(chan struct{}, 1),
		log: a.log.With("event_id", id, "event_type", st.Event.EventType)}
}

// offer queues a view of the event if its status, presence or Resources
// changed since the last one. It never blocks.
func (w *worker) offer(u update) {
	if u.present == w.last.present && u.event.EventStatus == w.last.event.EventStatus &&
		resourcesKey(u.event.Resources) == resourcesKey(w.last.event.Resources) {
		return
	}
	w.last = u
	w.mu.Lock()
	w.pending = append(w.pending, u)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// take returns the queued views.
func (w *worker) take() []update {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.pending
	w.pending = nil
	return out
}

// run handles views until the event is finished or ctx ends.
func (w *worker) run(ctx context.Context) {
	for {
		timer := w.approvalTimer()
		select {
		case <-ctx.Done():
			stopTimer(timer)
			return
		case <-w.wake:
			stopTimer(timer)
			for _, u := range w.take() {
				if w.apply(ctx, u) {
					return
				}
			}
		case <-timerChan(timer):
			w.tryApprove(ctx)
		}
	}
}

// apply handles one view; it reports whether the event is finished.
func (w *worker) apply(ctx context.Context, u update) bool {
	if !u.present {
		w.finish(ctx)
		return true
	}
	w.st.Event = u.event
	w.save()
	switch u.event.EventStatus {
	case client.EventStatusScheduled:
		if w.policy() == Immediately {
			w.tryApprove(ctx)
		}
		w.transition(ctx, Scheduled)
		w.tryApprove(ctx)
	case client.EventStatusStarted:
		if !w.st.Started {
			w.st.Started = true
			w.save()
		}
		w.transition(ctx, Started)
	}
	return false
}

// finish runs on_completed or on_cancelled for an event that left the
// document, and marks it finished.
func (w *worker) finish(ctx context.Context) {
	nb := w.st.Event.NotBefore
	outcome := Cancelled
	if w.st.Started || w.st.Approved || nb.IsZero() || !w.a.clock.Now().Before(nb) {
		outcome = Completed
	}
	if !w.transition(ctx, outcome) {
		return
	}
	w.st.Finished = w.a.clock.Now()
	w.save()
	w.log.Info("event finished", "outcome", outcome)
}

// transition runs the hook of a transition unless it ran already, and
// reports whether it is now done (false: ctx ended while it ran).
func (w *worker) transition(ctx context.Context, t string) bool {
	if w.st.ran(t) {
		return true
	}
	attrs := []any{"status", t, "resources", w.st.Event.Resources}
	if nb := w.st.Event.NotBefore; !nb.IsZero() { // a Started event has none
		attrs = append(attrs, "not_before", nb)
	}
	w.log.Info("event transition", append(attrs, "hits_vm", w.hitsVM())...)
	w.a.webhook.notify(Notification{VM: w.a.vm, Status: t, Event: w.st.Event, Time: w.a.clock.Now()})
	result, ok := w.runHook(ctx, t)
	if !ok {
		return false
	}
	w.st.Hooks[t] = result
	w.save()
	return true
}

// runHook runs the hook of a transition, if any, and returns "ok",
// "failed" or "none"; ok is false when ctx ended while it ran (it is then
// not recorded, and runs again after a restart).
func (w *worker) runHook(ctx context.Context, t string) (string, bool) {
	h := w.a.cfg.hooksFor(w.st.Event.EventType).hookOf(t)
	if h == nil {
		return "none", true
	}
	name := hookNames[t]
	log := w.log.With("hook", name)
	log.Info("hook running", "command", h.Command)
	out, err := runHook(ctx, h, w.st.Event, t, w.a.vm)
	if ctx.Err() != nil {
		log.Warn("hook interrupted by the agent stopping; it will run again", "error", err)
		return "", false
	}
	result := "ok"
	if err != nil {
		result = "failed"
		log.Error("hook failed", "error", err, "output", out)
	} else {
		log.Info("hook done", "output", out)
	}
	w.a.metrics.hookRuns.WithLabelValues(name, result).Inc()
	w.a.metrics.hookLatency.WithLabelValues(name).Observe(w.a.clock.Since(w.st.FirstSeen).Seconds())
	return result, true
}

// save writes the worker's state; a failure is logged (the hook may then
// run again after a restart).
func (w *worker) save() {
	if err := w.a.state.put(w.id, w.st); err != nil {
		w.log.Error("state not saved: hooks may run again after a restart", "error", err)
	}
}

// policy is the approval policy of the event's type.
func (w *worker) policy() Policy { return w.a.cfg.policyFor(w.st.Event.EventType) }

// hitsVM reports whether the event names this VM.
func (w *worker) hitsVM() bool { return w.st.Event.Hits(w.a.vm) }

// wantsApproval reports whether the policy asks to approve the event now,
// leadership aside.
func (w *worker) wantsApproval() bool {
	if w.st.Approved || w.st.ApprovalRefused || w.st.Event.EventStatus != client.EventStatusScheduled || !w.hitsVM() {
		return false
	}
	switch w.policy() {
	case Immediately:
		return true
	case AfterHook:
		r := w.st.Hooks[Scheduled]
		return r == "ok" || r == "none"
	}
	return false
}

// approvalDelay is how long to wait before approving a wanted approval:
// a retry after a failure, or a follower's fallback.
func (w *worker) approvalDelay() time.Duration {
	now := w.a.clock.Now()
	if !w.retryAt.IsZero() && now.Before(w.retryAt) {
		return w.retryAt.Sub(now)
	}
	if !w.a.cfg.LeaderOnly || w.a.isLeader(w.st.Event) || w.st.Event.NotBefore.IsZero() {
		return 0
	}
	return max(w.st.Event.NotBefore.Add(-time.Duration(w.a.cfg.LeaderFallback)).Sub(now), 0)
}

// approvalTimer returns a timer for a pending approval, nil if none.
func (w *worker) approvalTimer() clockTimer {
	if !w.wantsApproval() {
		return nil
	}
	return w.a.clock.NewTimer(w.approvalDelay())
}

// tryApprove approves the event if it is wanted and due.
func (w *worker) tryApprove(ctx context.Context) {
	if !w.wantsApproval() || w.approvalDelay() > 0 {
		return
	}
	leader := w.a.isLeader(w.st.Event)
	err := w.a.client.Approve(ctx, w.id)
	if apiErr, ok := errors.AsType[*client.APIError](err); ok && apiErr.StatusCode == http.StatusBadRequest {
		w.log.Warn("approval refused, giving up (the event started or left)", "error", err)
		w.st.ApprovalRefused = true
		w.save()
		return
	}
	if err != nil {
		if ctx.Err() == nil {
			w.log.Error("approval failed, retrying", "error", err, "retry_in", approveRetry)
			w.retryAt = w.a.clock.Now().Add(approveRetry)
		}
		return
	}
	w.retryAt = time.Time{}
	w.st.Approved = true
	w.save()
	w.a.metrics.approvals.Inc()
	w.log.Info("event approved", "policy", w.policy(), "leader", leader)
}
