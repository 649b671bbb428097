package etcd

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/forewarn/forewarn/internal/records"
)

// SchemaVersion is the version of the key layout this release writes and
// reads. Open refuses a prefix with a higher version.
//
// Version 2 replaced the JSON list of each kind's names with index keys
// (the VMs and events of each scope, the VMs of each address) and range
// reads. Version 3 keeps each campaign's progress per scope in keys of
// their own and reads the history as a range, without the JSON list of its
// entries that every finished event rewrote. Opening an older prefix
// upgrades it.
const SchemaVersion = 3

// schemaKey is the meta key of the schema version.
const schemaKey = "schema-version"

// initSchema writes the schema version under an empty prefix, or checks the
// version of a used one, which it returns. Two stores opening an empty
// prefix at once agree: the version is written only if absent, and the
// loser checks it.
func (s *Store) initSchema(ctx context.Context) (int, error) {
	for range 3 {
		resp, err := s.client.Txn(ctx).Then(
			clientv3.OpGet(s.keys.meta(schemaKey)),
			clientv3.OpGet(s.keys.prefix+"/", clientv3.WithPrefix(), clientv3.WithCountOnly()),
		).Commit()
		if err != nil {
			return 0, fmt.Errorf("read schema version: %w", err)
		}
		var stored string
		kvs := resp.Responses[0].GetResponseRange().Kvs
		if len(kvs) > 0 {
			stored = strings.TrimPrefix(string(kvs[0].Value), metaMarker)
		}
		empty := resp.Responses[1].GetResponseRange().Count == 0
		found, err := records.CheckSchema(stored, len(kvs) > 0, empty, SchemaVersion)
		if err != nil || found > 0 {
			return found, err
		}
		created, err := s.writeSchema(ctx)
		if err != nil {
			return 0, err
		}
		if created {
			return SchemaVersion, nil
		}
	}
	return 0, fmt.Errorf("schema version keeps changing under prefix %s", s.keys.prefix)
}

// writeSchema writes the schema version if there is none; created is false
// if another store wrote one first.
func (s *Store) writeSchema(ctx context.Context) (created bool, err error) {
	key := s.keys.meta(schemaKey)
	resp, err := s.client.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, metaMarker+strconv.Itoa(SchemaVersion))).
		Commit()
	if err != nil {
		return false, fmt.Errorf("write schema version: %w", err)
	}
	if resp.Succeeded {
		s.logger.Info("created store", "store", s.where, "schema", SchemaVersion)
		s.createdAt = resp.Header.Revision
	}
	return resp.Succeeded, nil
}

// Withdraw undoes the creation of the store, for a start refused on it
// (serve --store-must-exist): it deletes the schema version Open wrote
// under an empty prefix, if no Update committed there since, so that the
// prefix is left as it was found. It does nothing to a store Open did not
// create.
func (s *Store) Withdraw(ctx context.Context) error {
	if s.createdAt == 0 {
		return nil
	}
	key := s.keys.meta(schemaKey)
	_, err := s.client.Txn(ctx).
		If(clientv3.Compare(clientv3.ModRevision(key), "=", s.createdAt),
			clientv3.Compare(clientv3.CreateRevision(s.keys.updateGuard()), "=", 0)).
		Then(clientv3.OpDelete(key)).
		Commit()
	if err != nil {
		return fmt.Errorf("withdraw store %s: %w", s.where, err)
	}
	return nil
}
