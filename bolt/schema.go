package bolt

import (
	"errors"
	"fmt"
	"strconv"

	"go.etcd.io/bbolt"

	"github.com/forewarn/forewarn/internal/records"
)

// SchemaVersion is the version of the file layout this release writes and
// reads. Open refuses a file with a higher version.
//
// Version 2 added the buckets of the indexes, which opening a version 1
// file builds. Version 3 keeps a campaign's progress per scope in records
// of their own (campaign-scopes), which opening an older file moves out of
// each campaign's record.
const SchemaVersion = 3

// The buckets of the file, and the meta key of the schema version.
var (
	metaBucket      = []byte("meta")
	scopesBucket    = []byte("scopes")
	vmsBucket       = []byte("vms")
	eventsBucket    = []byte("events")
	historyBucket   = []byte("history")
	campaignsBucket = []byte("campaigns")
	// campaignPlansBucket and campaignScopesBucket hold each campaign's
	// plan and its progress per scope (see records.Tx.PutCampaign).
	campaignPlansBucket  = []byte("campaign-plans")
	campaignScopesBucket = []byte("campaign-scopes")

	vmsByScopeBucket    = []byte("vms-by-scope")
	eventsByScopeBucket = []byte("events-by-scope")
	vmsByAddressBucket  = []byte("vms-by-address")

	allBuckets = [][]byte{metaBucket, scopesBucket, vmsBucket, eventsBucket, historyBucket, campaignsBucket,
		campaignPlansBucket, campaignScopesBucket, vmsByScopeBucket, eventsByScopeBucket, vmsByAddressBucket}

	schemaKey = []byte("schema-version")
)

// errNotEmpty stops the scan of isEmpty at the first bucket.
var errNotEmpty = errors.New("not empty")

// initSchema writes the schema version and buckets into a new file,
// checks the version of an existing one, and upgrades an older one.
func (s *Store) initSchema() error {
	return s.db.Update(func(btx *bbolt.Tx) error {
		found, err := checkSchema(btx)
		if err != nil {
			return err
		}
		if err := createBuckets(btx); err != nil {
			return err
		}
		switch {
		case found == 0:
			s.logger.Info("created store", "path", s.path, "schema", SchemaVersion)
			return writeSchema(btx)
		case found < SchemaVersion:
			s.logger.Info("upgrading store", "path", s.path, "from", found, "to", SchemaVersion)
			if err := upgrade(btx, found); err != nil {
				return fmt.Errorf("upgrade store from schema %d: %w", found, err)
			}
			return writeSchema(btx)
		}
		s.logger.Debug("opened store", "path", s.path, "schema", SchemaVersion)
		return nil
	})
}

// checkSchema returns the schema version of the file, 0 if it is empty, or
// an error if it is not one this release knows (records.CheckSchema).
func checkSchema(btx *bbolt.Tx) (int, error) {
	var stored []byte
	if meta := btx.Bucket(metaBucket); meta != nil {
		stored = meta.Get(schemaKey)
	}
	return records.CheckSchema(string(stored), stored != nil, isEmpty(btx), SchemaVersion)
}

// upgrade brings a file of schema from to this release's, in the open's
// transaction.
func upgrade(btx *bbolt.Tx, from int) error {
	if from < 2 {
		if err := buildIndexes(btx); err != nil {
			return err
		}
	}
	return splitCampaigns(btx)
}

// splitCampaigns moves the progress of each campaign's scopes, which
// schemas 1 and 2 kept in the campaign's record, into records of their own
// (records.SplitCampaign, as etcd's upgrade does).
func splitCampaigns(btx *bbolt.Tx) error {
	var split []records.Entry
	err := btx.Bucket(campaignsBucket).ForEach(func(key, data []byte) error {
		entries, err := records.SplitCampaign(string(key), data)
		split = append(split, entries...)
		return err
	})
	for _, e := range split { // after the walk: bbolt's ForEach must not write
		if err == nil {
			err = btx.Bucket(buckets[e.Index]).Put([]byte(e.Key), []byte(e.Member))
		}
	}
	return err
}

// buildIndexes writes the index entries of every VM and event, for a file
// of schema 1, which had no indexes.
func buildIndexes(btx *bbolt.Tx) error {
	for _, k := range []records.Kind{records.VMs, records.Events} {
		err := btx.Bucket(buckets[k]).ForEach(func(key, data []byte) error {
			entries, err := records.IndexEntries(k, string(key), data)
			for _, e := range entries {
				if err == nil {
					err = btx.Bucket(buckets[e.Index]).Put([]byte(e.Key), []byte(e.Member))
				}
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("index %ss: %w", k, err)
		}
	}
	return nil
}

// isEmpty reports whether the file has no bucket at all.
func isEmpty(btx *bbolt.Tx) bool {
	err := btx.ForEach(func([]byte, *bbolt.Bucket) error { return errNotEmpty })
	return err == nil
}

func writeSchema(btx *bbolt.Tx) error {
	meta, err := btx.CreateBucketIfNotExists(metaBucket)
	if err != nil {
		return fmt.Errorf("create bucket %s: %w", metaBucket, err)
	}
	if err := meta.Put(schemaKey, []byte(strconv.Itoa(SchemaVersion))); err != nil {
		return fmt.Errorf("write schema version: %w", err)
	}
	return nil
}

// createBuckets creates the buckets a file of this version lacks.
func createBuckets(btx *bbolt.Tx) error {
	for _, name := range allBuckets {
		if _, err := btx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	return nil
}
