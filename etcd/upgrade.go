package etcd

import (
	"context"
	"fmt"
	"strconv"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/forewarn/forewarn/internal/records"
)

// upgrade brings a prefix of schema 1 to this release's: it writes the
// index keys of every VM and event, deletes the JSON lists of names that
// schema 1 kept per kind, and then the new version. It writes in batches
// of maxReadOps keys (etcd bounds the operations of a request); if it is
// cut short, the next Open does it again, as every step can be repeated.
// Every replica must be stopped first: one of schema 1 would not keep the
// index keys.
func (s *Store) upgrade(ctx context.Context, from int) error {
	s.logger.Info("upgrading store", "store", s.where, "from", from, "to", SchemaVersion)
	var batch []clientv3.Op
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		_, err := s.client.Txn(ctx).Then(batch...).Commit()
		batch = batch[:0]
		return err
	}
	add := func(op clientv3.Op) error {
		batch = append(batch, op)
		if len(batch) < maxReadOps {
			return nil
		}
		return flush()
	}
	snap := &snapshot{client: s.client, ctx: ctx}
	for _, k := range []records.Kind{records.VMs, records.Events} {
		dir := s.keys.prefix + "/" + dirs[k] + "/"
		err := snap.scan(dir, clientv3.GetPrefixRangeEnd(dir), func(key, value string) (bool, error) {
			entries, err := records.IndexEntries(k, key[len(dir):], []byte(value))
			for _, e := range entries {
				if err == nil {
					err = add(clientv3.OpPut(s.keys.record(dirs[e.Index], e.Key), e.Member))
				}
			}
			return err == nil, err
		})
		if err != nil {
			return fmt.Errorf("index %ss: %w", k, err)
		}
	}
	for _, k := range records.Kinds {
		if err := add(clientv3.OpDelete(s.keys.index(dirs[k]))); err != nil {
			return err
		}
	}
	if err := flush(); err != nil {
		return err
	}
	_, err := s.client.Put(ctx, s.keys.meta(schemaKey), metaMarker+strconv.Itoa(SchemaVersion))
	return err
}
