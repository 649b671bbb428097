package bolt

import (
	"errors"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/forewarn/forewarn/internal/records"
)

// errTxClosed is returned by a tx used after its View or Update returned.
var errTxClosed = errors.New("transaction is closed")

// tx is a forewarn.Tx over one bbolt transaction.
type tx struct {
	records.Tx
	btx    *bbolt.Tx
	closed bool
}

// newTx returns the tx of a bbolt transaction.
func newTx(btx *bbolt.Tx) *tx {
	t := &tx{btx: btx}
	t.Tx = records.NewTx(t)
	return t
}

// close marks the tx as done: bbolt's pages must not be read afterwards.
func (t *tx) close() { t.closed = true }

// bucket returns one of the buckets of the file.
func (t *tx) bucket(name []byte) (*bbolt.Bucket, error) {
	if t.closed {
		return nil, errTxClosed
	}
	b := t.btx.Bucket(name)
	if b == nil {
		return nil, fmt.Errorf("bucket %s is missing", name)
	}
	return b, nil
}
