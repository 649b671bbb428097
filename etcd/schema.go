package etcd

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/forewarn/forewarn"
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
		if kvs := resp.Responses[0].GetResponseRange().Kvs; len(kvs) > 0 {
			return checkSchema(string(kvs[0].Value))
		}
		if resp.Responses[1].GetResponseRange().Count > 0 {
			return 0, forewarn.Errorf(forewarn.ErrSchema,
				"store has data but no schema version; it was not written by forewarn")
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

// checkSchema returns the version stored if this release knows it.
func checkSchema(stored string) (int, error) {
	raw := strings.TrimPrefix(stored, metaMarker)
	found, err := strconv.Atoi(raw)
	if err != nil || found < 1 {
		return 0, forewarn.Errorf(forewarn.ErrSchema, "store schema version %q is not valid", raw)
	}
	if found > SchemaVersion {
		return 0, forewarn.Errorf(forewarn.ErrSchema,
			"store schema version %d is newer than this release supports (%d); run a newer forewarn",
			found, SchemaVersion)
	}
	return found, nil
}
