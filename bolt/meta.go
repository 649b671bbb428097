package bolt

import (
	"bytes"
	"fmt"

	"github.com/forewarn/forewarn/internal/records"
)

// Meta returns a copy of the setting key, or nil if it is not set.
func (t *tx) Meta(key string) ([]byte, error) {
	b, err := t.bucket(metaBucket)
	if err != nil {
		return nil, fmt.Errorf("get meta %q: %w", key, err)
	}
	return bytes.Clone(b.Get([]byte(key))), nil
}

// PutMeta sets the setting key; a nil value unsets it. The schema version is
// the store's own and cannot be set.
func (t *tx) PutMeta(key string, value []byte) error {
	if err := records.CheckMetaKey(key, string(schemaKey)); err != nil {
		return err
	}
	b, err := t.bucket(metaBucket)
	if err != nil {
		return fmt.Errorf("put meta %q: %w", key, err)
	}
	if value == nil {
		err = b.Delete([]byte(key))
	} else {
		err = b.Put([]byte(key), bytes.Clone(value)) // bbolt keeps the slice until commit
	}
	if err != nil {
		return fmt.Errorf("put meta %q: %w", key, err)
	}
	return nil
}
