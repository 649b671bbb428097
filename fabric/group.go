package fabric

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/forewarn/forewarn"
)

// group commits the changes that come at once together (group commit):
// those that arrive while one is being committed wait, and the next
// transaction carries them all. On bbolt a commit costs two fsyncs however
// little it writes, so that VMs' approvals and users' operations from many
// clients at once would otherwise queue behind one another's fsyncs. A
// lone change commits at once.
type group struct {
	mu      sync.Mutex
	pending []*grouped
	// committing says a caller's goroutine is committing: the others leave
	// their change to it.
	committing bool
}

// grouped is one change of a group, and its outcome once committed.
type grouped struct {
	check checkFunc
	err   error
	done  chan struct{}
}

// checkFunc reads what a change needs in t and refuses it, writing nothing
// (a refusal: ErrInvalid, ErrNotFound, ErrConflict, ErrLimit); else it
// returns the function that writes it.
type checkFunc func(t *txn) (apply func() error, err error)

// commitGrouped commits a change with the others that come meanwhile, and
// returns its own outcome: its refusal, or the commit's error. It waits
// at most storeTimeout, or until ctx ends; a change whose wait ends may
// still be committed, as one whose commit outlives the wait always could.
func (f *Fabric) commitGrouped(ctx context.Context, check checkFunc) error {
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	g := &grouped{check: check, done: make(chan struct{})}
	if f.group.add(g) {
		go f.commitGroups() // in the background, so that every caller can give up
	}
	select {
	case <-g.done:
		return g.err
	case <-ctx.Done():
		return fmt.Errorf("wait for the store: %w (%w)", ctx.Err(), forewarn.ErrUnavailable)
	}
}

// add queues g and reports whether the caller is to commit the queue.
func (q *group) add(g *grouped) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.pending = append(q.pending, g)
	if q.committing {
		return false
	}
	q.committing = true
	return true
}

// take returns the changes queued, or nil when there are none, and then
// the caller is no longer committing.
func (q *group) take() []*grouped {
	q.mu.Lock()
	defer q.mu.Unlock()
	batch := q.pending
	q.pending = nil
	if len(batch) == 0 {
		q.committing = false
	}
	return batch
}

// commitGroups commits the queued changes, as many a transaction as the
// store takes, until none is left.
func (f *Fabric) commitGroups() {
	for batch := f.group.take(); batch != nil; batch = f.group.take() {
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

// commitEach commits each change of batch in a transaction of its own.
func (f *Fabric) commitEach(batch []*grouped) {
	for i := range batch {
		_, errs := f.commitBatch(batch[i : i+1])
		answer(batch[i:i+1], errs)
	}
}

// answer gives each change its outcome.
func answer(batch []*grouped, errs []error) {
	for i, g := range batch {
		g.err = errs[i]
		close(g.done)
	}
}

// commitBatch commits the first changes of batch in one transaction, as
// many as the store takes in one (forewarn.WriteLimited), at least one, and
// returns how many, and the outcome of each. A refused change writes
// nothing and fails on its own; any other error fails the whole batch, and
// nothing is written.
func (f *Fabric) commitBatch(batch []*grouped) (int, []error) {
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	errs := make([]error, len(batch))
	n := 0
	err := f.update(ctx, func(t *txn) error {
		clear(errs) // fn runs again if the commit found another's first
		n = 0
		most := 0
		for i, g := range batch {
			if n > 0 && !t.room(most) {
				break
			}
			apply, err := g.check(t)
			if refusal(err) {
				errs[i] = err
				n++
				continue
			}
			if err != nil {
				return err
			}
			written, err := t.counted(apply)
			if err != nil {
				return err
			}
			most = max(most, written)
			n++
		}
		return nil
	})
	if err != nil { // every change of the batch: the store is out of reach or full
		n = len(batch)
		for i := range errs {
			errs[i] = err
		}
	}
	return n, errs[:n]
}

// refusal reports whether a check's error refuses its change, which then
// wrote nothing: the other errors are the store's.
func refusal(err error) bool {
	return errors.Is(err, forewarn.ErrInvalid) || errors.Is(err, forewarn.ErrNotFound) ||
		errors.Is(err, forewarn.ErrConflict) || errors.Is(err, forewarn.ErrLimit)
}
