package bolt

import (
	"errors"
	"fmt"
	"strconv"

	"go.etcd.io/bbolt"

	"github.com/forewarn/forewarn"
)

// SchemaVersion is the version of the file layout this release writes and
// reads. Open refuses a file with a higher version.
const SchemaVersion = 1

// The buckets of the file, and the meta key of the schema version.
var (
	metaBucket      = []byte("meta")
	scopesBucket    = []byte("scopes")
	vmsBucket       = []byte("vms")
	eventsBucket    = []byte("events")
	historyBucket   = []byte("history")
	campaignsBucket = []byte("campaigns")

	allBuckets = [][]byte{metaBucket, scopesBucket, vmsBucket, eventsBucket, historyBucket, campaignsBucket}

	schemaKey = []byte("schema-version")
)

// errNotEmpty stops the scan of isEmpty at the first bucket.
var errNotEmpty = errors.New("not empty")

// initSchema writes the schema version and buckets into a new file, or
// checks the version of an existing one.
func (s *Store) initSchema() error {
	return s.db.Update(func(btx *bbolt.Tx) error {
		created, err := checkSchema(btx)
		if err != nil {
			return err
		}
		if err := createBuckets(btx); err != nil {
			return err
		}
		if created {
			s.logger.Info("created store", "path", s.path, "schema", SchemaVersion)
		} else {
			s.logger.Debug("opened store", "path", s.path, "schema", SchemaVersion)
		}
		return nil
	})
}

// checkSchema returns nil if the file has the version this release knows,
// and writes that version into an empty file (created is then true).
func checkSchema(btx *bbolt.Tx) (created bool, err error) {
	meta := btx.Bucket(metaBucket)
	if meta == nil || meta.Get(schemaKey) == nil {
		if !isEmpty(btx) {
			return false, forewarn.Errorf(forewarn.ErrSchema,
				"store has data but no schema version; it was not written by forewarn")
		}
		return true, writeSchema(btx)
	}
	raw := string(meta.Get(schemaKey))
	found, err := strconv.Atoi(raw)
	if err != nil || found < 1 {
		return false, forewarn.Errorf(forewarn.ErrSchema, "store schema version %q is not valid", raw)
	}
	if found > SchemaVersion {
		return false, forewarn.Errorf(forewarn.ErrSchema,
			"store schema version %d is newer than this release supports (%d); run a newer forewarn",
			found, SchemaVersion)
	}
	return false, nil
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
