package fabric

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/forewarn/forewarn"
)

// approvals commits the VMs' approvals together: those that arrive while
// one is being committed wait, and the next transaction carries them all
// (group commit). On bbolt a commit costs two fsyncs however little it
// writes, so that approvals from many VMs at once would otherwise queue
// behind one another's fsyncs. A lone approval commits at once.
type approvals struct {
	mu      sync.Mutex
	pending []*approval
	// committing says a caller is committing: the others leave their
	// approval to it.
	committing bool
}

// approval is one VM's approval of events, and its outcome once committed.
type approval struct {
	vm   string
	ids  []string
	err  error
	done chan struct{}
}

// approve commits a VM's approval of events, with others that are waiting,
// and returns its own outcome: a refusal of it (an event that is not in
// the VM's document), or the commit's error. It waits at most storeTimeout,
// or until ctx ends; an approval whose wait ends may still be committed,
// as one whose commit outlives the wait always could.
func (f *Fabric) approveAsVM(ctx context.Context, vm string, ids []string) error {
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	a := &approval{vm: vm, ids: ids, done: make(chan struct{})}
	if f.approvals.add(a) {
		go f.commitApprovals() // in the background, so that every caller can give up
	}
	select {
	case <-a.done:
		return a.err
	case <-ctx.Done():
		return fmt.Errorf("wait for the store: %w (%w)", ctx.Err(), forewarn.ErrUnavailable)
	}
}

// add queues a and reports whether the caller is to commit the queue.
func (q *approvals) add(a *approval) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending = append(q.pending, a)
	if q.committing {
		return false
	}
	q.committing = true
	return true
}

// take returns the approvals queued, or nil when there are none, and then
// the caller is no longer committing.
func (q *approvals) take() []*approval {
	q.mu.Lock()
	defer q.mu.Unlock()
	batch := q.pending
	q.pending = nil
	if len(batch) == 0 {
		q.committing = false
	}
	return batch
}

// commitApprovals commits the queued approvals, as many a transaction as
// the store takes, until none is left.
func (f *Fabric) commitApprovals() {
	for batch := f.approvals.take(); batch != nil; batch = f.approvals.take() {
		for len(batch) > 0 {
			n, errs := f.commitBatch(batch)
			if n > 1 && errors.Is(errs[0], forewarn.ErrTooLarge) {
				// The store does not say what it takes: one at a time.
				f.commitEach(batch)
				break
			}
			answer(batch[:n], errs)
			batch = batch[n:]
		}
	}
}

// commitEach commits each approval of batch in a transaction of its own.
func (f *Fabric) commitEach(batch []*approval) {
	for i := range batch {
		_, errs := f.commitBatch(batch[i : i+1])
		answer(batch[i:i+1], errs)
	}
}

// answer gives each approval its outcome.
func answer(batch []*approval, errs []error) {
	for i, a := range batch {
		a.err = errs[i]
		close(a.done)
	}
}

// commitBatch commits the first approvals of batch in one transaction, as
// many as the store takes in one (forewarn.WriteLimited), at least one, and
// returns how many, and the outcome of each. A refused approval (refusal)
// writes nothing and fails on its own; any other error fails the whole
// batch, and nothing is written.
func (f *Fabric) commitBatch(batch []*approval) (int, []error) {
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	errs := make([]error, len(batch))
	n := 0
	err := f.update(ctx, func(t *txn) error {
		clear(errs) // fn runs again if the commit found another's first
		n = 0
		most := 0
		for i, a := range batch {
			if n > 0 && !t.room(most) {
				break
			}
			vm, chosen, err := f.approvalOf(t, a.vm, a.ids)
			if refusal(err) {
				errs[i] = err
				n++
				continue
			}
			if err != nil {
				return err
			}
			written, err := t.counted(func() error { return f.approveAll(t, vm, chosen) })
			if err != nil {
				return err
			}
			most = max(most, written)
			n++
		}
		return nil
	})
	if err != nil { // every approval of the batch: the store is out of reach or full
		n = len(batch)
		for i := range errs {
			errs[i] = err
		}
	}
	return n, errs[:n]
}

// refusal reports whether err refuses an approval without writing: an
// event not in the VM's document, a VM that does not exist.
func refusal(err error) bool {
	return errors.Is(err, forewarn.ErrInvalid) || errors.Is(err, forewarn.ErrNotFound)
}
