package memstore

import (
	"bytes"
	"errors"

	"github.com/forewarn/forewarn/internal/records"
)

// The errors of a transaction used as it may not be.
var (
	// errReadOnly: a View tried to write.
	errReadOnly = errors.New("memstore: write in a read-only transaction")
	// errTxClosed: the transaction was used after its View or Update
	// returned.
	errTxClosed = errors.New("memstore: transaction is closed")
)

// tx is a forewarn.Tx over a state: the committed one for a View, a copy
// for an Update.
type tx struct {
	records.Tx
	state    *state
	writable bool
	closed   bool
}

var _ records.Raw = (*tx)(nil)

func newTx(st *state, writable bool) *tx {
	t := &tx{state: st, writable: writable}
	t.Tx = records.NewTx(t)
	return t
}

func (t *tx) close() { t.closed = true }

// check refuses a closed transaction, and a write in a View.
func (t *tx) check(write bool) error {
	switch {
	case t.closed:
		return errTxClosed
	case write && !t.writable:
		return errReadOnly
	}
	return nil
}

// RawGet reads a record.
func (t *tx) RawGet(k records.Kind, key string) ([]byte, bool, error) {
	if err := t.check(false); err != nil {
		return nil, false, err
	}
	data, ok := t.state.table(k).data[key]
	return data, ok, nil
}

// RawGetMany reads records, nil for a missing one.
func (t *tx) RawGetMany(k records.Kind, keys []string) ([][]byte, error) {
	if err := t.check(false); err != nil {
		return nil, err
	}
	tab := t.state.table(k)
	out := make([][]byte, len(keys))
	for i, key := range keys {
		out[i] = tab.data[key]
	}
	return out, nil
}

// RawScan walks the records of a kind whose keys begin with prefix.
func (t *tx) RawScan(k records.Kind, prefix, after string, fn func(key string, data []byte) (bool, error)) error {
	if err := t.check(false); err != nil {
		return err
	}
	return t.state.table(k).scan(prefix, after, fn)
}

// RawPut writes a record; data is not changed afterwards (records encodes
// each value afresh).
func (t *tx) RawPut(k records.Kind, key string, data []byte) error {
	if err := t.check(true); err != nil {
		return err
	}
	t.state.ownTable(k).put(key, data)
	return nil
}

// RawDelete deletes a record.
func (t *tx) RawDelete(k records.Kind, key string) (bool, error) {
	if err := t.check(true); err != nil {
		return false, err
	}
	if _, ok := t.state.table(k).data[key]; !ok {
		return false, nil
	}
	return t.state.ownTable(k).delete(key), nil
}

// Meta returns a copy of the setting key, or nil if it is not set.
func (t *tx) Meta(key string) ([]byte, error) {
	if err := t.check(false); err != nil {
		return nil, err
	}
	return bytes.Clone(t.state.meta[key]), nil
}

// PutMeta sets the setting key; a nil value unsets it.
func (t *tx) PutMeta(key string, value []byte) error {
	if err := t.check(true); err != nil {
		return err
	}
	if err := records.CheckMetaKey(key, ""); err != nil {
		return err
	}
	if value == nil {
		delete(t.state.ownMeta(), key)
		return nil
	}
	t.state.ownMeta()[key] = bytes.Clone(value)
	return nil
}
