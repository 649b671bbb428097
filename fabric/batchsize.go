package fabric

import "sync/atomic"

// shrink halves a batch size that made a transaction of tried items too
// large for the store (etcd's --max-txn-ops): to half of what was tried,
// which a batch of fewer items than its size tried. Another transaction
// may have shrunk it already.
func (f *Fabric) shrink(size *atomic.Int64, was, tried int64, what string, err error) {
	if next := min(was, tried) / 2; next >= 1 && size.CompareAndSwap(was, next) {
		f.log.Info("a transaction was too large for the store: taking fewer "+what+" a transaction"+
			" (etcd's --max-txn-ops bounds it)", "batch", next, "err", err)
	}
}
