package etcd

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/forewarn/forewarn"
)

// A record kind of the store: the directory of its keys, which also names
// its index, and its name in messages.
type kind struct {
	dir  string
	what string
}

var (
	scopeKind    = kind{"scopes", "scope"}
	vmKind       = kind{"vms", "VM"}
	eventKind    = kind{"events", "event"}
	campaignKind = kind{"campaigns", "campaign"}
)

// get reads the record named name. Decoding gives the caller its own copy.
func get[T any](t *tx, k kind, name string) (*T, error) {
	data, ok, err := t.get1(t.keys.record(k, name))
	if err != nil {
		return nil, fmt.Errorf("get %s %q: %w", k.what, name, err)
	}
	if !ok {
		return nil, notFound(k.what, name)
	}
	v := new(T)
	if err := json.Unmarshal([]byte(data), v); err != nil {
		return nil, fmt.Errorf("decode %s %q: %w", k.what, name, err)
	}
	return v, nil
}

// list reads every record of a kind, in the order of their lowercased
// names, that keep accepts.
func list[T any](t *tx, k kind, keep func(*T) bool) ([]*T, error) {
	members, err := readIndex[string](t, k.dir)
	if err != nil {
		return nil, fmt.Errorf("list %ss: %w", k.what, err)
	}
	recordKeys := make([]string, len(members))
	for i, name := range members {
		recordKeys[i] = t.keys.record(k, name)
	}
	vals, err := t.kv.get(recordKeys...)
	if err != nil {
		return nil, fmt.Errorf("list %ss: %w", k.what, err)
	}
	var out []*T
	for i, key := range recordKeys {
		data, ok := vals[key]
		if !ok {
			return nil, fmt.Errorf("list %ss: index lists %q but its record is missing", k.what, members[i])
		}
		v := new(T)
		if err := json.Unmarshal([]byte(data), v); err != nil {
			return nil, fmt.Errorf("decode %s %q: %w", k.what, members[i], err)
		}
		if keep(v) {
			out = append(out, v)
		}
	}
	return out, nil
}

// put writes v as the record named name, replacing one of the same name in
// any case, and adds a new name to the kind's index.
func put(t *tx, k kind, name string, v any) error {
	if name == "" {
		return forewarn.Errorf(forewarn.ErrInvalid, "%s has no name", k.what)
	}
	if err := t.canWrite(); err != nil {
		return fmt.Errorf("put %s %q: %w", k.what, name, err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s %q: %w", k.what, name, err)
	}
	key := t.keys.record(k, name)
	_, exists, err := t.get1(key)
	if err != nil {
		return fmt.Errorf("put %s %q: %w", k.what, name, err)
	}
	if !exists {
		if err := t.addToIndex(k.dir, lower(name)); err != nil {
			return fmt.Errorf("put %s %q: %w", k.what, name, err)
		}
	}
	t.kv.put(key, string(data))
	return nil
}

// del deletes the record named name and its entry in the index;
// ErrNotFound if there is none.
func del(t *tx, k kind, name string) error {
	if err := t.canWrite(); err != nil {
		return fmt.Errorf("delete %s %q: %w", k.what, name, err)
	}
	key := t.keys.record(k, name)
	_, exists, err := t.get1(key)
	if err != nil {
		return fmt.Errorf("delete %s %q: %w", k.what, name, err)
	}
	if !exists {
		return notFound(k.what, name)
	}
	if err := t.removeFromIndex(k.dir, lower(name)); err != nil {
		return fmt.Errorf("delete %s %q: %w", k.what, name, err)
	}
	t.kv.del(key)
	return nil
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
