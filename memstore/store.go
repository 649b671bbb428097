package memstore

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/records"
)

var _ forewarn.Store = (*Store)(nil)

// errClosed is returned by a transaction of a closed store.
var errClosed = errors.New("memstore: store is closed")

// Store is a forewarn.Store in memory. It is safe for concurrent use.
type Store struct {
	// writer serialises Updates.
	writer sync.Mutex
	// mu guards state and closed; the state it points to is never changed,
	// only replaced.
	mu     sync.Mutex
	state  *state
	closed bool
}

// New returns an empty store.
func New() *Store {
	return &Store{state: &state{tables: map[records.Kind]*table{}, meta: map[string][]byte{}}}
}

// current returns the state committed last.
func (s *Store) current() (*state, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errClosed
	}
	return s.state, nil
}

// View runs fn in a read-only transaction over the state committed last.
func (s *Store) View(ctx context.Context, fn func(forewarn.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("read store: %w", err)
	}
	st, err := s.current()
	if err != nil {
		return err
	}
	t := newTx(st, false)
	defer t.close()
	return fn(t)
}

// Update runs fn in a read-write transaction and commits what it wrote if
// fn returns nil; otherwise nothing is kept and fn's error is returned as
// it is.
func (s *Store) Update(ctx context.Context, fn func(forewarn.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("update store: %w", err)
	}
	s.writer.Lock()
	defer s.writer.Unlock()
	st, err := s.current()
	if err != nil {
		return err
	}
	t := newTx(st.begin(), true)
	err = fn(t)
	t.close()
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	s.state = t.state
	return nil
}

// Close ends the store; later transactions fail. Closing twice does
// nothing.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}
