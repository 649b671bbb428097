package fabric

import (
	"context"
	"time"

	"github.com/forewarn/forewarn"
)

// retryAfter is how long Run waits after a failed Tick.
const retryAfter = time.Second

// Tick does the work that is due now: it starts the Scheduled events whose
// NotBefore has come and completes the started events whose impact has
// ended, in one transaction. It returns the next deadline, or the zero time
// if nothing is pending.
func (f *Fabric) Tick(ctx context.Context) (time.Time, error) {
	next, due, err := f.pending(ctx)
	if err != nil || !due {
		return next, err
	}
	err = f.update(ctx, func(t *txn) error {
		events, err := t.Events("")
		if err != nil {
			return err
		}
		for _, e := range events {
			if err := f.due(t, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return time.Time{}, err
	}
	next, _, err = f.pending(ctx)
	return next, err
}

// pending returns the next deadline of the events in flight, and whether
// one has passed.
func (f *Fabric) pending(ctx context.Context) (next time.Time, due bool, err error) {
	now := f.clock.Now()
	err = f.view(ctx, func(tx forewarn.Tx) error {
		events, err := tx.Events("")
		for _, e := range events {
			d := deadline(e)
			next = earliest(next, d)
			due = due || !now.Before(d)
		}
		return err
	})
	return next, due, err
}

// due starts or completes one event if its time has come.
func (f *Fabric) due(t *txn, e *forewarn.Event) error {
	switch {
	case e.Status == forewarn.Scheduled && !t.now.Before(e.NotBefore):
		return f.start(t, e)
	case e.Status == forewarn.Started && !t.now.Before(e.EndsAt):
		return f.complete(t, e)
	}
	return nil
}

// deadline is the next time an event changes by itself.
func deadline(e *forewarn.Event) time.Time {
	if e.Status == forewarn.Scheduled {
		return e.NotBefore
	}
	return e.EndsAt
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// Run calls Tick whenever the next deadline passes or a change may have
// brought it closer, and stores what the enabling requests noted once a
// minute, until ctx ends.
func (f *Fabric) Run(ctx context.Context) error {
	flush := f.clock.NewTicker(enableFlushEvery)
	defer flush.Stop()
	for {
		next, err := f.Tick(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			f.log.Error("tick failed", "err", err)
			next = f.clock.Now().Add(retryAfter)
		}
		if err := f.wait(ctx, next, flush.Chan()); err != nil {
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
