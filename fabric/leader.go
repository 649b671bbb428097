package fabric

import (
	"context"

	"github.com/forewarn/forewarn"
)

// lead runs the time-driven work of the fabric while this replica leads,
// campaigning again whenever it loses the lead, and stores the enabling
// state once a minute whether it leads or not (each replica stores the
// requests it served), until ctx ends.
func (f *Fabric) lead(ctx context.Context, el forewarn.Elector) error {
	flushed := f.flushEvery(ctx)
	defer func() { <-flushed }()
	for {
		err := f.leadOnce(ctx, el)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			f.log.Error("campaign for leadership failed, trying again", "replica", f.cfg.Replica.ID, "err", err)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-f.clock.After(retryAfter):
			}
			continue
		}
		f.log.Warn("lost leadership", "replica", f.cfg.Replica.ID)
	}
}

// leadOnce waits to lead, then runs the time-driven work, every update of
// it fenced, until the lead is lost or ctx ends; then it gives the lead up.
func (f *Fabric) leadOnce(ctx context.Context, el forewarn.Elector) error {
	term, end := context.WithCancel(ctx)
	defer end() // gives the lead up
	leading, fence, err := el.Lead(term, f.cfg.Replica.ID)
	if err != nil {
		return err
	}
	f.log.Info("leading the time-driven work", "replica", f.cfg.Replica.ID)
	// What the last leader did may not have reached this replica's watch
	// yet: the scheduler starts from the store, not from a snapshot that
	// lags (a run the old leader recorded would run again).
	if err := f.refresh(leading, forewarn.Change{All: true}); err != nil && leading.Err() == nil {
		f.log.Error("read the state before leading; the watch brings it", "err", err)
	}
	f.setLeading(true)
	defer f.setLeading(false)
	_ = f.runTicks(withFence(leading, fence), nil) // ends with leading
	return nil
}

// flushEvery stores the enabling state once a minute, and publishes the
// scopes gone idle, until ctx ends; the returned channel closes when it
// stops.
func (f *Fabric) flushEvery(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	flush := f.clock.NewTicker(enableFlushEvery)
	go func() {
		defer close(done)
		defer flush.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-flush.Chan():
				if err := f.flushEnabling(ctx); err != nil && ctx.Err() == nil {
					f.log.Error("store enabling state", "err", err)
				}
				if err := f.publishLapsed(ctx); err != nil && ctx.Err() == nil {
					f.log.Error("publish scopes gone idle", "err", err)
				}
			}
		}
	}()
	return done
}

// fenceKey is the context key of the leader's fence.
type fenceKey struct{}

// withFence returns a context under which every update of the fabric runs
// the fence first: the leader's updates, which must not commit once
// another replica leads.
func withFence(ctx context.Context, fence func(forewarn.Tx) error) context.Context {
	return context.WithValue(ctx, fenceKey{}, fence)
}

// fenceOf returns the fence of ctx, or a check that always passes.
func fenceOf(ctx context.Context) func(forewarn.Tx) error {
	if fence, ok := ctx.Value(fenceKey{}).(func(forewarn.Tx) error); ok && fence != nil {
		return fence
	}
	return func(forewarn.Tx) error { return nil }
}
