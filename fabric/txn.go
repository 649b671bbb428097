package fabric

import (
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/forewarn/forewarn"
)

// txn is one read-write transaction of the fabric: the store's Tx, read
// through a cache, the time it runs at, and the changes it made, so that
// each scope's incarnation is bumped once and its new state published
// after the commit.
type txn struct {
	*readCache
	now         time.Time
	historyKeep int
	changes     *changes

	bumped map[forewarn.Key]bool // scopes whose incarnation this tx bumped
	// newIDs are ids for new events, made and read ahead by
	// reserveEventIDs, taken by newEventID.
	newIDs []string
}

func newTxn(tx forewarn.Tx, now time.Time, historyKeep int) *txn {
	return &txn{
		readCache:   newReadCache(tx),
		now:         now,
		historyKeep: historyKeep,
		changes:     newChanges(now),
		bumped:      map[forewarn.Key]bool{},
	}
}

// writes returns how many writes the transaction holds and the most the
// store takes in one, or 0 and 0 if it does not say (forewarn.WriteLimited).
func (t *txn) writes() (n, limit int) {
	if l, ok := t.Tx.(forewarn.WriteLimited); ok {
		return l.Writes()
	}
	return 0, 0
}

// counted runs fn and returns how many writes it added to the transaction
// (0 if the store does not say).
func (t *txn) counted(fn func() error) (int, error) {
	before, _ := t.writes()
	err := fn()
	after, _ := t.writes()
	return after - before, err
}

// room reports whether the transaction may take another item that writes
// up to more: always, if the store does not bound its transactions.
func (t *txn) room(more int) bool {
	n, limit := t.writes()
	return limit == 0 || n+more <= limit
}

// PutEvent writes an event and notes its scope for the scheduler.
func (t *txn) PutEvent(e *forewarn.Event) error {
	if err := t.readCache.PutEvent(e); err != nil {
		return err
	}
	t.changes.eventWritten(e.Scope)
	return nil
}

// DeleteEvent deletes an event and notes its scope for the scheduler, and
// that an event ended.
func (t *txn) DeleteEvent(id string) error {
	scope, err := t.readCache.deleteEvent(id)
	if scope != "" {
		t.changes.eventWritten(scope)
	}
	t.changes.eventEnded = true
	return err
}

// reserveEventIDs makes ids for n new events and reads their keys ahead,
// if the store reads ahead: storing an event reads its key, to find one
// stored before; on etcd, a round trip each otherwise.
func (t *txn) reserveEventIDs(n int) error {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = uuid.NewString()
	}
	if p, ok := t.Tx.(interface{ PrefetchEvents([]string) error }); ok {
		if err := p.PrefetchEvents(ids); err != nil {
			return err
		}
	}
	t.newIDs = append(t.newIDs, ids...)
	return nil
}

// newEventID returns an id for a new event: one reserveEventIDs made, or a
// new one.
func (t *txn) newEventID() string {
	if len(t.newIDs) == 0 {
		return uuid.NewString()
	}
	id := t.newIDs[0]
	t.newIDs = t.newIDs[1:]
	return id
}

// touch marks a scope to be published after the commit: its VMs changed,
// or its events did.
func (t *txn) touch(scope string) { t.changes.touch(scope) }

// eventsChanged bumps the incarnation of a scope whose events changed, once
// per transaction.
func (t *txn) eventsChanged(scope string) error {
	key := forewarn.KeyOf(scope)
	t.touch(scope)
	if t.bumped[key] {
		return nil
	}
	s, err := t.Scope(scope)
	if err != nil {
		return err
	}
	s.Incarnation++
	if err := t.PutScope(s); err != nil {
		return fmt.Errorf("bump incarnation of %q: %w", scope, err)
	}
	t.bumped[key] = true
	return nil
}

// scopeDeleted marks a scope as gone, to be removed from the endpoint.
func (t *txn) scopeDeleted(scope string) { t.changes.scopeDeleted(scope) }
