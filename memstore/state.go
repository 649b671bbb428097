package memstore

import (
	"maps"
	"slices"
	"strings"

	"github.com/forewarn/forewarn/internal/records"
)

// state is everything the store holds. A committed state is never changed:
// an Update changes a copy (begin), which copies each part before its first
// write to it (own...).
type state struct {
	tables map[records.Kind]*table
	meta   map[string][]byte
	// history is the JSON of the finished events kept, oldest first, and
	// historyLast the number of the last (records.RawHistory).
	history     [][]byte
	historyLast uint64

	// owned says which parts this copy has copied already.
	owned        map[records.Kind]bool
	ownedMeta    bool
	ownedHistory bool
}

// begin returns a copy of a committed state to write to.
func (st *state) begin() *state {
	return &state{
		tables:      maps.Clone(st.tables),
		meta:        st.meta,
		history:     st.history,
		historyLast: st.historyLast,
		owned:       map[records.Kind]bool{},
	}
}

// table returns a table to read; a missing one reads as empty.
func (st *state) table(k records.Kind) *table {
	if t := st.tables[k]; t != nil {
		return t
	}
	return &table{}
}

// ownTable returns a table of the copy to write to.
func (st *state) ownTable(k records.Kind) *table {
	if !st.owned[k] {
		st.tables[k] = st.table(k).clone()
		st.owned[k] = true
	}
	return st.tables[k]
}

func (st *state) ownMeta() map[string][]byte {
	if !st.ownedMeta {
		st.meta = maps.Clone(st.meta)
		st.ownedMeta = true
	}
	return st.meta
}

func (st *state) ownHistory() [][]byte {
	if !st.ownedHistory {
		st.history = slices.Clone(st.history)
		st.ownedHistory = true
	}
	return st.history
}

// table holds the records of one kind, or the entries of one index, by key,
// with the keys in order for scans. Values are JSON, never changed once
// stored.
type table struct {
	data map[string][]byte
	keys []string // sorted
}

func (t *table) clone() *table {
	return &table{data: maps.Clone(t.data), keys: slices.Clone(t.keys)}
}

func (t *table) put(key string, data []byte) {
	if t.data == nil {
		t.data = map[string][]byte{}
	}
	if _, ok := t.data[key]; !ok {
		i, _ := slices.BinarySearch(t.keys, key)
		t.keys = slices.Insert(t.keys, i, key)
	}
	t.data[key] = data
}

func (t *table) delete(key string) bool {
	if _, ok := t.data[key]; !ok {
		return false
	}
	delete(t.data, key)
	i, _ := slices.BinarySearch(t.keys, key)
	t.keys = slices.Delete(t.keys, i, i+1)
	return true
}

// scan calls fn with the entries whose keys begin with prefix, in key
// order, after the key after, until fn returns false or an error.
func (t *table) scan(prefix, after string, fn func(key string, data []byte) (bool, error)) error {
	i, _ := slices.BinarySearch(t.keys, max(prefix, after))
	for ; i < len(t.keys) && strings.HasPrefix(t.keys[i], prefix); i++ {
		key := t.keys[i]
		if key == after {
			continue
		}
		if more, err := fn(key, t.data[key]); err != nil || !more {
			return err
		}
	}
	return nil
}
