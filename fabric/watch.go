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
// the store reports changed, and wakes the scheduler, until ctx ends. A
// refresh that fails (the store is out of reach) is tried again, reading
// everything, every retryAfter until it succeeds. The returned channel
// closes when it stops; it is closed at once for a store that cannot be
// watched.
func (f *Fabric) follow(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	w, ok := f.store.(forewarn.Watcher)
	if !ok {
		close(done)
		return done
	}
	f.mu.Lock()
	rev := f.readRev
	f.mu.Unlock()
	aw, after := w.(afterWatcher)
	after = after && rev > 0
	var changes <-chan forewarn.Change
	if after { // from the last read of every scope: nothing to read again
		changes = aw.WatchAfter(ctx, rev)
	} else {
		changes = w.Watch(ctx)
	}
	go func() {
		defer close(done)
		if !after { // what changed between the last publish and the watch
			f.refreshUntilDone(ctx, forewarn.Change{All: true})
		}
		for c := range changes {
			f.refreshUntilDone(ctx, c)
			f.poke()
		}
	}()
	return done
}

// refreshUntilDone refreshes c, and while that fails, everything, every
// retryAfter, until it succeeds or ctx ends.
func (f *Fabric) refreshUntilDone(ctx context.Context, c forewarn.Change) {
	for {
		err := f.refresh(ctx, c)
		if err == nil || ctx.Err() != nil {
			return
		}
		f.log.Error("refresh what other replicas changed; trying again", "scopes", c.Scopes, "all", c.All, "in", retryAfter, "err", err)
		select {
		case <-ctx.Done():
			return
		case <-f.clock.After(retryAfter):
		}
		c = forewarn.Change{All: true}
	}
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
	var (
		read *readCache
		out  *changes
	)
	err := f.view(ctx, func(tx forewarn.Tx) error {
		read, out = newReadCache(tx), newChanges(f.clock.Now())
		scopes := c.Scopes
		if c.All {
			stored, err := read.readAll()
			if err != nil {
				return err
			}
			scopes = append(slices.Collect(maps.Values(f.published)), stored...)
		}
		if !c.All {
			if err := read.prefetch(scopes); err != nil {
				return err
			}
		}
		for _, name := range scopes {
			_, err := read.Scope(name)
			switch {
			case errors.Is(err, forewarn.ErrNotFound):
				out.scopeDeleted(name)
			case err != nil:
				return err
			default:
				out.touch(name)
			}
		}
		if c.All || slices.Contains(c.Meta, metaChaos) {
			rules, err := chaosRules(tx, out.now)
			if err != nil {
				return err
			}
			out.chaos = &rules
		}
		switch {
		case c.All || (c.Campaigns && len(c.CampaignIDs) == 0):
			var err error
			if out.campaigns, err = tx.Campaigns(); err != nil {
				return err
			}
		case c.Campaigns:
			for _, id := range c.CampaignIDs {
				campaign, err := tx.Campaign(id)
				if errors.Is(err, forewarn.ErrNotFound) {
					continue
				} else if err != nil {
					return err
				}
				out.campaigns = append(out.campaigns, campaign)
			}
		}
		return out.collect(read)
	})
	if err != nil {
		return fmt.Errorf("refresh: %w", err)
	}
	f.publish(out)
	if c.All {
		f.wholeRead = out
		if r, ok := read.Tx.(revisioned); ok {
			f.readRev = r.Revision()
		}
	}
	f.campaignsDue.Store(true) // another replica may have ended an event
	return nil
}

// revisioned is a transaction that tells the revision of the store it
// reads at (etcd's).
type revisioned interface{ Revision() int64 }

// afterWatcher is a Watcher that can follow what changed after a revision:
// since a read at it.
type afterWatcher interface {
	WatchAfter(ctx context.Context, rev int64) <-chan forewarn.Change
}
