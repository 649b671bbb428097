package fabric

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/forewarn/forewarn"
)

// retryAfter is how long Run waits after a failed Tick.
const retryAfter = time.Second

// Tick does the work that is due now: it starts the Scheduled events whose
// NotBefore has come and completes the started events whose simulated
// impact has ended (runDue), moves campaigns on if one may move, and starts the
// actuator on started events it is not running on. It returns the next
// deadline, or the zero time if nothing is pending.
func (f *Fabric) Tick(ctx context.Context) (time.Time, error) {
	p := f.pending()
	errs := f.runDue(ctx, p.due)
	advanced, more, err := f.advanceIfDue(ctx)
	errs = append(errs, err)
	if len(p.due) > 0 || advanced {
		p = f.pending()
	}
	f.acts.retain(p.live)
	for _, e := range p.actuate {
		f.actuate(ctx, e)
	}
	if more { // a campaign's next batch is due now
		p.next = f.clock.Now()
	}
	return p.next, errors.Join(errs...)
}

// runDue starts or completes the due events, a batch a transaction
// (maxDueBatch, smaller while the store finds the transaction too large), or
// each in a transaction of its own if their batch fails otherwise, so that
// one that fails holds up no other.
func (f *Fabric) runDue(ctx context.Context, due []dueEvent) []error {
	var errs []error
	for len(due) > 0 {
		size := f.dueBatch.Load()
		batch := due[:min(len(due), int(size))]
		if len(batch) > 1 {
			n, err := f.dueAll(ctx, batch)
			if errors.Is(err, forewarn.ErrTooLarge) {
				f.shrink(&f.dueBatch, size, int64(len(batch)), "due events", err)
				continue
			}
			if err == nil {
				due = due[n:]
				continue
			}
		}
		for _, d := range batch {
			if _, err := f.dueAll(ctx, []dueEvent{d}); err != nil {
				errs = append(errs, fmt.Errorf("event %s: %w", d.id, err))
			}
		}
		due = due[len(batch):]
	}
	if len(errs) > maxDueErrors { // the same cause, most often: etcd out of reach or full
		errs = append(errs[:maxDueErrors], fmt.Errorf("and %d more events", len(errs)-maxDueErrors))
	}
	return errs
}

// maxDueErrors is how many failed events a Tick's error names.
const maxDueErrors = 3

// advanceIfDue advances the campaigns if one may move on (campaignsDue);
// it reports whether events changed, and whether a campaign has more to do
// at once (its advance stopped at a batch).
func (f *Fabric) advanceIfDue(ctx context.Context) (advanced, more bool, err error) {
	if !f.campaignsDue.Swap(false) {
		return false, false, nil
	}
	advanced, more, err = f.advanceCampaigns(ctx)
	if err != nil || more {
		f.campaignsDue.Store(true)
	}
	return advanced, more, err
}

// maxDueBatch is how many due events one transaction starts or completes: a
// campaign over thousands of scopes brings thousands due at once, and a
// commit (an fsync) for each would start the last of them seconds late.
const maxDueBatch = 256

// dueAll starts or completes the events whose time has come, in one
// transaction: all of them, or as many as the store takes in one
// (forewarn.WriteLimited); it returns how many. It reads each through its
// scope's events, which starting or completing it reads anyway.
func (f *Fabric) dueAll(ctx context.Context, due []dueEvent) (int, error) {
	done := 0
	err := f.update(ctx, func(t *txn) error {
		done = 0 // fn runs again if the commit found another's first
		most := 0
		for i, d := range due {
			if done > 0 && !t.room(most) {
				break
			}
			if i%duePrefetch == 0 {
				if err := t.prefetch(scopesOf(due[i:min(len(due), i+duePrefetch)])); err != nil {
					return err
				}
			}
			n, err := t.counted(func() error { return f.dueOne(t, d) })
			if err != nil {
				return err
			}
			most = max(most, n)
			done++
		}
		return nil
	})
	return done, err
}

// duePrefetch is how many due events' scopes dueAll reads ahead at a
// time: about what one transaction of etcd takes.
const duePrefetch = 32

func scopesOf(due []dueEvent) []string {
	out := make([]string, len(due))
	for i, d := range due {
		out[i] = d.scope
	}
	return out
}

// dueOne starts or completes an event whose time has come, if it is still
// in flight.
func (f *Fabric) dueOne(t *txn, d dueEvent) error {
	events, err := t.Events(d.scope)
	if err != nil {
		return err
	}
	i := slices.IndexFunc(events, func(e *forewarn.Event) bool { return forewarn.SameName(e.ID, d.id) })
	if i < 0 {
		return nil // gone meanwhile
	}
	return f.runIfDue(t, events[i])
}

// dueEvent is an event whose time has come, and its scope.
type dueEvent struct{ id, scope string }

// work is what pending found to do.
type work struct {
	next    time.Time         // the next deadline, zero if none
	due     []dueEvent        // events whose deadline has passed
	actuate []*forewarn.Event // started events the actuator carries out
	live    map[runKey]bool   // the runs started events may need
}

// pending returns the work of the events in flight, from the snapshots
// last published (inFlight), not the store: every change to an event is
// published, by the transaction that made it or, for another replica's, by
// the watch, which also wakes the scheduler. Due events come oldest
// deadline first.
func (f *Fabric) pending() work {
	now := f.clock.Now()
	w := work{live: map[runKey]bool{}}
	var due []*forewarn.Event
	f.mu.Lock()
	for _, s := range f.inFlight {
		for _, e := range s.events {
			if e.Status == forewarn.Started {
				for _, name := range e.Resources {
					w.live[keyOf(e.ID, name)] = true
				}
			}
			d, ok := f.deadline(e)
			switch {
			case !ok:
				w.actuate = append(w.actuate, e)
			case !now.Before(d):
				due = append(due, e)
			default:
				w.next = earliest(w.next, d)
			}
		}
	}
	f.mu.Unlock()
	slices.SortFunc(due, func(a, b *forewarn.Event) int {
		da, _ := f.deadline(a)
		db, _ := f.deadline(b)
		return cmp.Or(da.Compare(db), cmp.Compare(a.ID, b.ID))
	})
	for _, e := range due {
		w.due = append(w.due, dueEvent{e.ID, e.Scope})
	}
	return w
}

// runIfDue starts an event, or carries it out with a timed actuator, if
// its time has come.
func (f *Fabric) runIfDue(t *txn, e *forewarn.Event) error {
	if e.Status == forewarn.Scheduled {
		if t.now.Before(e.NotBefore) {
			return nil
		}
		return f.start(t, e)
	}
	if a, ok := f.cfg.Actuator.(timed); ok {
		return f.actuateTimed(t, e, a)
	}
	return nil
}

// deadline is the next time an event changes by itself: its NotBefore, or
// the end of a timed actuator's runs. It reports false for a started event
// that an actuator carries out in goroutines of its own.
func (f *Fabric) deadline(e *forewarn.Event) (time.Time, bool) {
	if e.Status == forewarn.Scheduled {
		return e.NotBefore, true
	}
	if a, ok := f.cfg.Actuator.(timed); ok && len(unactuated(e)) > 0 {
		return a.runsEnd(e), true
	}
	return time.Time{}, false
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// Run calls Tick whenever the next deadline passes or a change may have
// brought it closer, runs the actuator on started events, and stores what
// the enabling requests noted once a minute, until ctx ends. If the store
// is a forewarn.Watcher, Run also republishes the scopes other replicas
// change; if it is a forewarn.Elector, Run does the time-driven work only
// while this replica leads (see lead).
func (f *Fabric) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	followed, joined := f.follow(ctx), f.join(ctx)
	defer func() { cancel(); <-followed; <-joined }()
	if el, ok := f.store.(forewarn.Elector); ok {
		return f.lead(ctx, el)
	}
	flush := f.clock.NewTicker(enableFlushEvery)
	defer flush.Stop()
	f.setLeading(true) // the one replica of its store
	defer f.setLeading(false)
	return f.runTicks(ctx, flush.Chan())
}

// runTicks calls Tick when work is due, and stores the enabling state when
// flush fires (never if it is nil), until ctx ends; then it waits for the
// actuations, which end with ctx.
func (f *Fabric) runTicks(ctx context.Context, flush <-chan time.Time) error {
	defer f.acts.wg.Wait()
	for {
		next, err := f.Tick(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			f.metrics.tickFailures.Inc()
			f.log.Error("tick failed", "err", err)
			next = f.clock.Now().Add(retryAfter)
		}
		if err := f.wait(ctx, next, flush); err != nil {
			return err
		}
	}
}

// wait returns when the deadline next passes (never if it is zero), when a
// change wakes the fabric, or after storing the enabling state when flush
// fires.
func (f *Fabric) wait(ctx context.Context, next time.Time, flush <-chan time.Time) error {
	var timeout <-chan time.Time
	if !next.IsZero() {
		timer := f.clock.NewTimer(next.Sub(f.clock.Now()))
		defer timer.Stop()
		timeout = timer.Chan()
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-f.wake:
	case <-timeout:
	case <-flush:
		if err := f.flushEnabling(ctx); err != nil && ctx.Err() == nil {
			f.log.Error("store enabling state", "err", err)
		}
	}
	return nil
}
