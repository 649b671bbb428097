package fabric

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/forewarn/forewarn"
)

// follow keeps the published snapshots current with the changes other
// replicas make, if the store can be watched: it republishes every scope
// the store reports changed, and wakes the scheduler, until ctx ends. The
// returned channel closes when it stops; it is closed at once for a store
// that cannot be watched.
func (f *Fabric) follow(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	w, ok := f.store.(forewarn.Watcher)
	if !ok {
		close(done)
		return done
	}
	changes := w.Watch(ctx)
	// What changed between the last publish and the start of the watch.
	f.mu.Lock()
	if err := f.publishAll(ctx); err != nil && ctx.Err() == nil {
		f.log.Error("refresh after watching the store", "err", err)
	}
	f.mu.Unlock()
	go func() {
		defer close(done)
		for c := range changes {
			if err := f.refresh(ctx, c); err != nil && ctx.Err() == nil {
				f.log.Error("refresh what other replicas changed", "scopes", c.Scopes, "all", c.All, "err", err)
			}
			select {
			case f.wake <- struct{}{}:
			default:
			}
		}
	}()
	return done
}

// refresh reads and publishes the current state of what changed: the
// scopes, removing the ones that are gone, the chaos rules and the
// campaigns' metrics. Snapshots older than what the endpoint serves (the
// fabric's own commits may come back later) are ignored there.
func (f *Fabric) refresh(ctx context.Context, c forewarn.Change) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refreshLocked(ctx, c)
}

// refreshLocked is refresh with f.mu held. With c.All it reads every scope
// stored or published.
func (f *Fabric) refreshLocked(ctx context.Context, c forewarn.Change) error {
	var t *txn
	err := f.view(ctx, func(tx forewarn.Tx) error {
		t = newTxn(tx, f.clock.Now(), f.cfg.HistoryKeep)
		scopes := c.Scopes
		if c.All {
			stored, err := tx.Scopes()
			if err != nil {
				return err
			}
			scopes = slices.Collect(maps.Values(f.published))
			for _, s := range stored {
				scopes = append(scopes, s.Name)
			}
		}
		for _, name := range scopes {
			_, err := tx.Scope(name)
			switch {
			case errors.Is(err, forewarn.ErrNotFound):
				t.scopeDeleted(name)
			case err != nil:
				return err
			default:
				t.touch(name)
			}
		}
		if c.All || slices.Contains(c.Meta, metaChaos) {
			rules, err := chaosRules(tx, t.now)
			if err != nil {
				return err
			}
			t.chaos = &rules
		}
		if c.All || c.Campaigns {
			var err error
			if t.campaigns, err = tx.Campaigns(); err != nil {
				return err
			}
		}
		return t.collect()
	})
	if err != nil {
		return fmt.Errorf("refresh: %w", err)
	}
	f.publish(t)
	return nil
}
