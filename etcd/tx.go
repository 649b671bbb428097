package etcd

import (
	"errors"
	"fmt"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/records"
)

var (
	// errTxClosed is returned by a tx used after its View or Update
	// returned.
	errTxClosed = errors.New("transaction is closed")
	// errReadOnly is returned by a write in a View.
	errReadOnly = errors.New("transaction is read-only")
)

// tx is a forewarn.Tx over a kv.
type tx struct {
	records.Tx
	kv       kv
	keys     keys
	writable bool
	closed   bool
}

// newTx returns a tx over kv.
func newTx(kv kv, k keys, writable bool) *tx {
	t := &tx{kv: kv, keys: k, writable: writable}
	t.Tx = records.NewTx(t)
	return t
}

// Writes returns how many operations the commit of the transaction would
// send (its writes, its range deletes and the guard key), and the most the
// store believes etcd takes (see Store.maxOps); 0 and 0 in a View.
func (t *tx) Writes() (n, limit int) {
	o, ok := t.kv.(*optimistic)
	if !ok || o.maxOps == nil {
		return 0, 0
	}
	return len(o.order) + len(o.erased) + 1, int(o.maxOps.Load())
}

// Revision returns the etcd revision the transaction reads at; 0 before
// its first read.
func (t *tx) Revision() int64 { return t.kv.revision() }

// close marks the tx as done.
func (t *tx) close() { t.closed = true }

// readable returns an error if the tx may no longer read.
func (t *tx) readable() error {
	if t.closed {
		return errTxClosed
	}
	return nil
}

// canWrite returns an error if the tx may not write.
func (t *tx) canWrite() error {
	if t.closed {
		return errTxClosed
	}
	if !t.writable {
		return errReadOnly
	}
	return nil
}

// get1 reads one key; ok is false if it is missing.
func (t *tx) get1(key string) (value string, ok bool, err error) {
	if err := t.readable(); err != nil {
		return "", false, err
	}
	vals, err := t.kv.get(key)
	if err != nil {
		return "", false, err
	}
	value, ok = vals[key]
	return value, ok, nil
}

// keys builds the keys of a store under its prefix.
type keys struct{ prefix string }

// record is the key of the record of a kind named name.
func (k keys) record(dir, name string) string {
	return k.prefix + "/" + dir + "/" + lower(name)
}

// index is the key of the index of a kind.
func (k keys) index(dir string) string { return k.prefix + "/index/" + dir }

// metaDir is the directory of the settings.
const metaDir = "meta"

// meta is the key of the setting key.
func (k keys) meta(key string) string { return k.prefix + "/" + metaDir + "/" + key }

// history is the key of history entry seq: zero-padded, so that keys sort
// in the order of their numbers.
func (k keys) history(seq uint64) string { return fmt.Sprintf("%s%020d", k.historyDir(), seq) }

// historyDir begins the keys of the history's entries.
func (k keys) historyDir() string { return k.prefix + "/history/" }

// updateGuard is the key every Update writes, so that a commit can check
// that no other Update committed since its reads.
func (k keys) updateGuard() string { return k.prefix + "/seq/update" }

// historySeq is the key of the last history sequence number.
func (k keys) historySeq() string { return k.prefix + "/seq/history" }

// lower is the key of a name or id in etcd: its forewarn.Key, so that
// keys are unique case-insensitively.
func lower(name string) string { return string(forewarn.KeyOf(name)) }
