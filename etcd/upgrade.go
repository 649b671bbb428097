package etcd

import (
	"context"
	"fmt"
	"strconv"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/forewarn/forewarn/internal/records"
)

// upgrade brings a prefix of an older schema to this release's, then
// writes the new version. It writes in batches of maxReadOps keys (etcd
// bounds the operations of a request); if it is cut short, the next Open
// does it again, as every step can be repeated. Every replica must be
// stopped first: one of an older release would not keep the new layout.
func (s *Store) upgrade(ctx context.Context, from int) error {
	s.logger.Info("upgrading store", "store", s.where, "from", from, "to", SchemaVersion)
	w := &batchWriter{client: s.client, ctx: ctx}
	snap := &snapshot{client: s.client, ctx: ctx}
	if from < 2 {
		if err := s.buildIndexes(snap, w); err != nil {
			return err
		}
	}
	if err := s.splitCampaigns(snap, w); err != nil {
		return err
	}
	// Schema 2 listed the history's entries in one JSON value, rewritten
	// at every append; their keys are now read as a range.
	if err := w.add(clientv3.OpDelete(s.keys.index(historyIndex))); err != nil {
		return err
	}
	if err := w.flush(); err != nil {
		return err
	}
	// The guard moves too: what a store knew before (warm) is known no more.
	_, err := s.client.Txn(ctx).Then(
		clientv3.OpPut(s.keys.meta(schemaKey), metaMarker+strconv.Itoa(SchemaVersion)),
		clientv3.OpPut(s.keys.updateGuard(), "upgrade"),
	).Commit()
	return err
}

// historyIndex names the index of the history that schemas 1 and 2 kept.
const historyIndex = "history"

// buildIndexes writes the index keys of every VM and event and deletes the
// JSON lists of names that schema 1 kept per kind.
func (s *Store) buildIndexes(snap *snapshot, w *batchWriter) error {
	for _, k := range []records.Kind{records.VMs, records.Events} {
		dir := s.keys.dir(k)
		err := snap.scan(dir, clientv3.GetPrefixRangeEnd(dir), func(key, value string) (bool, error) {
			entries, err := records.IndexEntries(k, key[len(dir):], []byte(value))
			for _, e := range entries {
				if err == nil {
					err = w.add(clientv3.OpPut(s.keys.record(dirs[e.Index], e.Key), e.Member))
				}
			}
			return err == nil, err
		})
		if err != nil {
			return fmt.Errorf("index %ss: %w", k, err)
		}
	}
	for _, k := range records.Kinds {
		if err := w.add(clientv3.OpDelete(s.keys.index(dirs[k]))); err != nil {
			return err
		}
	}
	return nil
}

// splitCampaigns moves the progress of each campaign's scopes, which
// schemas 1 and 2 kept in the campaign's key, into keys of their own: the
// progress first, then the campaign without it, so that a campaign cut
// short is split again.
func (s *Store) splitCampaigns(snap *snapshot, w *batchWriter) error {
	dir := s.keys.dir(records.Campaigns)
	err := snap.scan(dir, clientv3.GetPrefixRangeEnd(dir), func(key, value string) (bool, error) {
		records, err := records.SplitCampaign(key[len(dir):], []byte(value))
		for _, r := range records { // the campaign's own record last
			if err == nil {
				err = w.add(clientv3.OpPut(s.keys.record(dirs[r.Index], r.Key), r.Member))
			}
		}
		return err == nil, err
	})
	if err != nil {
		return fmt.Errorf("split campaigns: %w", err)
	}
	return nil
}

// batchWriter writes operations maxReadOps a transaction.
type batchWriter struct {
	client *clientv3.Client
	ctx    context.Context
	batch  []clientv3.Op
}

// add buffers op, and writes the batch once it is full.
func (w *batchWriter) add(op clientv3.Op) error {
	w.batch = append(w.batch, op)
	if len(w.batch) < maxReadOps {
		return nil
	}
	return w.flush()
}

// flush writes the buffered operations.
func (w *batchWriter) flush() error {
	if len(w.batch) == 0 {
		return nil
	}
	_, err := w.client.Txn(w.ctx).Then(w.batch...).Commit()
	w.batch = w.batch[:0]
	return err
}
