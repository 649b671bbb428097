package bolt

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/forewarn/forewarn"
)

// DefaultTimeout is how long Open waits for another process to release the
// file before it gives up.
const DefaultTimeout = time.Second

var _ forewarn.Store = (*Store)(nil)

// ErrInUse is returned by Open when another process holds the file's lock
// for longer than the timeout: another forewarn serve has the store open.
// The error also wraps bbolt's ErrTimeout.
var ErrInUse = errors.New("store is in use by another process")

// Options tune Open. The zero value is what production uses.
type Options struct {
	// Timeout is how long Open waits for the file lock that another process
	// holds; DefaultTimeout if zero.
	Timeout time.Duration
	// Logger receives the store's few messages; nil logs nothing.
	Logger *slog.Logger
}

// Store is a forewarn.Store in one bbolt file. It is safe for concurrent
// use: Views run in parallel, Updates one at a time.
type Store struct {
	db     *bbolt.DB
	path   string
	logger *slog.Logger
}

// Open opens the store at path, creating the file (and its directory) if it
// does not exist, and checks its schema version.
func Open(path string, opts Options) (*Store, error) {
	if path == "" {
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "store path is empty")
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: timeout})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("open store %s: %w: %w", path, ErrInUse, err)
	}
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	s := &Store{db: db, path: path, logger: logger.With("component", "store")}
	if err := s.initSchema(); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return s, nil
}

// Path returns the path of the store's file.
func (s *Store) Path() string { return s.path }

// Close releases the file. Closing a closed store does nothing.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close store %s: %w", s.path, err)
	}
	return nil
}

// View runs fn in a read-only transaction. It fails at once if ctx is done.
func (s *Store) View(ctx context.Context, fn func(forewarn.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("read store: %w", err)
	}
	btx, err := s.db.Begin(false)
	if err != nil {
		return fmt.Errorf("read store: %w", err)
	}
	defer func() { _ = btx.Rollback() }()
	t := newTx(btx)
	defer t.close()
	return fn(t)
}

// Update runs fn in a read-write transaction and commits it, synced to disk,
// if fn returns nil; otherwise nothing fn wrote is kept and fn's error is
// returned as it is. It fails at once if ctx is done.
func (s *Store) Update(ctx context.Context, fn func(forewarn.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("update store: %w", err)
	}
	btx, err := s.db.Begin(true)
	if err != nil {
		return fmt.Errorf("update store: %w", err)
	}
	defer func() { _ = btx.Rollback() }() // no-op after a commit
	t := newTx(btx)
	err = fn(t)
	t.close()
	if err != nil {
		return err
	}
	if err := btx.Commit(); err != nil {
		return fmt.Errorf("commit store: %w", err)
	}
	return nil
}
