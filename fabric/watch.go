package fabric

import (
	"context"
	"errors"
	"fmt"

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
		for scopes := range changes {
			if err := f.refresh(ctx, scopes); err != nil && ctx.Err() == nil {
				f.log.Error("refresh changed scopes", "scopes", scopes, "err", err)
			}
			select {
			case f.wake <- struct{}{}:
			default:
			}
		}
	}()
	return done
}

// refresh reads and publishes the current state of the scopes, removing
// the ones that are gone. Snapshots older than what the endpoint serves
// (the fabric's own commits may come back later) are ignored there.
func (f *Fabric) refresh(ctx context.Context, scopes []string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var t *txn
	err := f.view(ctx, func(tx forewarn.Tx) error {
		t = newTxn(tx, f.clock.Now(), f.cfg.HistoryKeep)
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
		return t.collect()
	})
	if err != nil {
		return fmt.Errorf("refresh scopes: %w", err)
	}
	f.publish(t)
	return nil
}
