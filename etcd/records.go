package etcd

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/forewarn/forewarn/internal/records"
)

// dirs maps each kind of record to the directory of its keys, which also
// names its index.
var dirs = map[records.Kind]string{
	records.Scopes:    "scopes",
	records.VMs:       "vms",
	records.Events:    "events",
	records.Campaigns: "campaigns",
}

var _ records.Raw = (*tx)(nil)

// RawGet reads a record.
func (t *tx) RawGet(k records.Kind, key string) ([]byte, bool, error) {
	data, ok, err := t.get1(t.keys.record(dirs[k], key))
	return []byte(data), ok, err
}

// RawList reads every record of a kind, in the order of its index, inside
// the transaction's conflict checks.
func (t *tx) RawList(k records.Kind) ([][]byte, error) {
	members, err := readIndex[string](t, dirs[k])
	if err != nil {
		return nil, err
	}
	recordKeys := make([]string, len(members))
	for i, name := range members {
		recordKeys[i] = t.keys.record(dirs[k], name)
	}
	vals, err := t.kv.get(recordKeys...)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(recordKeys))
	for i, key := range recordKeys {
		data, ok := vals[key]
		if !ok {
			return nil, fmt.Errorf("index lists %q but its record is missing", members[i])
		}
		out[i] = []byte(data)
	}
	return out, nil
}

// RawPut writes a record, adding a new key to the kind's index.
func (t *tx) RawPut(k records.Kind, key string, data []byte) error {
	if err := t.canWrite(); err != nil {
		return err
	}
	recordKey := t.keys.record(dirs[k], key)
	_, exists, err := t.get1(recordKey)
	if err != nil {
		return err
	}
	if !exists {
		if err := t.addToIndex(dirs[k], key); err != nil {
			return err
		}
	}
	t.kv.put(recordKey, string(data))
	return nil
}

// RawDelete deletes a record and its entry in the index, if there is one.
func (t *tx) RawDelete(k records.Kind, key string) (bool, error) {
	if err := t.canWrite(); err != nil {
		return false, err
	}
	recordKey := t.keys.record(dirs[k], key)
	_, exists, err := t.get1(recordKey)
	if err != nil || !exists {
		return false, err
	}
	if err := t.removeFromIndex(dirs[k], key); err != nil {
		return false, err
	}
	t.kv.del(recordKey)
	return true, nil
}

// readIndex reads the index of a kind; an unset index is empty.
func readIndex[E any](t *tx, dir string) ([]E, error) {
	data, ok, err := t.get1(t.keys.index(dir))
	if err != nil || !ok {
		return nil, err
	}
	var members []E
	if err := json.Unmarshal([]byte(data), &members); err != nil {
		return nil, fmt.Errorf("decode index %s: %w", dir, err)
	}
	return members, nil
}

// writeIndex replaces the index of a kind.
func writeIndex[E any](t *tx, dir string, members []E) error {
	if members == nil {
		members = []E{} // "[]", not "null": values are never empty
	}
	data, err := json.Marshal(members)
	if err != nil {
		return fmt.Errorf("encode index %s: %w", dir, err)
	}
	t.kv.put(t.keys.index(dir), string(data))
	return nil
}

// addToIndex inserts name into the sorted index of a kind.
func (t *tx) addToIndex(dir, name string) error {
	members, err := readIndex[string](t, dir)
	if err != nil {
		return err
	}
	i, found := slices.BinarySearch(members, name)
	if found {
		return nil
	}
	return writeIndex(t, dir, slices.Insert(members, i, name))
}

// removeFromIndex removes name from the sorted index of a kind.
func (t *tx) removeFromIndex(dir, name string) error {
	members, err := readIndex[string](t, dir)
	if err != nil {
		return err
	}
	i, found := slices.BinarySearch(members, name)
	if !found {
		return nil
	}
	return writeIndex(t, dir, slices.Delete(members, i, i+1))
}
