package etcd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
)

// DefaultCompactEvery is serve's default Config.CompactEvery: a watch or a
// transaction less than five minutes behind loses nothing.
const DefaultCompactEvery = 5 * time.Minute

// MinCompactEvery is the shortest interval serve takes: compaction is of
// the whole cluster, and a watch or a transaction more than an interval
// behind (a replica that lost etcd for a moment) must read again.
const MinCompactEvery = time.Minute

// compactTimeout bounds one request of the compaction loop.
const compactTimeout = LeaderTTL * time.Second

// compactWhileLeading compacts etcd's key history every s.compactEvery
// until ctx, the leader's, ends: each time at the revision the store had
// at the previous tick (at the start of the lead, the first time), so
// that a watch, a View or an Update less than one interval behind loses
// nothing. A watch further behind gets a compacted response and reads
// everything again (see Watch); a transaction fails with ErrUnavailable.
// A tick at which etcd does not answer compacts nothing; the next one
// compacts at the older revision.
func (s *Store) compactWhileLeading(ctx context.Context) {
	prev, err := s.revision(ctx)
	if err != nil && ctx.Err() == nil {
		s.logger.Warn("compaction: read the revision; compacting from the next tick", "err", err)
	}
	var done int64 // the revision of the last compaction
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.clock.After(s.compactEvery):
		}
		rev, err := s.revision(ctx)
		if err != nil {
			if ctx.Err() == nil {
				s.logger.Warn("compaction: read the revision; trying at the next tick", "err", err)
			}
			continue
		}
		if prev > done {
			if err := s.compact(ctx, prev); err != nil {
				if ctx.Err() == nil {
					s.logger.Warn("compaction failed; trying at the next tick", "revision", prev, "err", err)
				}
				continue // prev stays: older than one interval, it is still safe
			}
			done = prev
		}
		prev = rev
	}
}

// revision returns etcd's current revision.
func (s *Store) revision(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, compactTimeout)
	defer cancel()
	resp, err := s.client.Get(ctx, s.keys.meta(schemaKey))
	if err != nil {
		return 0, fmt.Errorf("read etcd's revision in %s: %w", s.where, err)
	}
	return resp.Header.Revision, nil
}

// compact compacts etcd's key history (of every key, not only the
// prefix's) below rev, without waiting for etcd to free the space
// (not physical). A history compacted further already, by etcd's own
// --auto-compaction-retention say, is no error.
func (s *Store) compact(ctx context.Context, rev int64) error {
	ctx, cancel := context.WithTimeout(ctx, compactTimeout)
	defer cancel()
	_, err := s.client.Compact(ctx, rev)
	switch {
	case errors.Is(err, rpctypes.ErrCompacted):
		s.logger.Debug("etcd's key history was compacted this far already", "revision", rev)
		return nil
	case err != nil:
		return fmt.Errorf("compact %s at revision %d: %w", s.where, rev, err)
	}
	s.logger.Info("compacted etcd's key history", "revision", rev)
	return nil
}
