package etcd

import (
	"fmt"
	"strings"

	"github.com/forewarn/forewarn/internal/records"
)

// metaMarker precedes every stored setting, so that an empty value is a
// non-empty etcd value and differs from an unset key.
const metaMarker = "="

// Meta returns a copy of the setting key, or nil if it is not set.
func (t *tx) Meta(key string) ([]byte, error) {
	raw, ok, err := t.get1(t.keys.meta(key))
	if err != nil {
		return nil, fmt.Errorf("get meta %q: %w", key, err)
	}
	if !ok {
		return nil, nil
	}
	value, found := strings.CutPrefix(raw, metaMarker)
	if !found {
		return nil, fmt.Errorf("get meta %q: stored value lacks its marker", key)
	}
	return append([]byte{}, value...), nil
}

// PutMeta sets the setting key; a nil value unsets it. The schema version is
// the store's own and cannot be set.
func (t *tx) PutMeta(key string, value []byte) error {
	if err := records.CheckMetaKey(key, schemaKey); err != nil {
		return err
	}
	if err := t.canWrite(); err != nil {
		return fmt.Errorf("put meta %q: %w", key, err)
	}
	if value == nil {
		t.kv.del(t.keys.meta(key))
	} else {
		t.kv.put(t.keys.meta(key), metaMarker+string(value))
	}
	return nil
}
