package bolt

import (
	"errors"
	"fmt"
	"strings"

	"go.etcd.io/bbolt"

	"github.com/forewarn/forewarn"
)

// errTxClosed is returned by a tx used after its View or Update returned.
var errTxClosed = errors.New("transaction is closed")

// tx is a forewarn.Tx over one bbolt transaction.
type tx struct {
	btx    *bbolt.Tx
	closed bool
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

// key is the key of a name or id: lowercase, so that keys are unique
// case-insensitively.
func key(name string) []byte { return []byte(strings.ToLower(name)) }

// notFound is the error of a missing record.
func notFound(what, name string) error {
	return forewarn.Errorf(forewarn.ErrNotFound, "%s %q not found", what, name)
}
