package etcd

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jonboulle/clockwork"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/forewarn/forewarn"
)

// DefaultMaxTxnOps is etcd's default --max-txn-ops: the most operations
// one etcd transaction takes.
const DefaultMaxTxnOps = 128

// DefaultPrefix is the key prefix of a Config without one.
const DefaultPrefix = "/forewarn"

// DefaultDialTimeout bounds connecting and Open's first request when
// Config.DialTimeout is zero.
const DefaultDialTimeout = 5 * time.Second

var _ forewarn.Store = (*Store)(nil)

// Config says where the store lives and how to reach it.
type Config struct {
	// Endpoints are the etcd members, "host:port" or a URL.
	Endpoints []string
	// Prefix starts every key of the store; DefaultPrefix if empty.
	Prefix string
	// Username and Password authenticate to etcd if Username is set.
	Username, Password string
	// TLS, if set, secures the connection.
	TLS *tls.Config
	// DialTimeout bounds connecting and Open's schema check;
	// DefaultDialTimeout if zero.
	DialTimeout time.Duration
	// Logger receives the store's few messages; nil logs nothing.
	Logger *slog.Logger
	// CompactEvery is how often the leader compacts etcd's key history
	// while it leads (see Lead): each time at the revision the store had
	// one interval earlier. Zero turns compaction off; serve's default is
	// DefaultCompactEvery.
	CompactEvery time.Duration
}

// Store is a forewarn.Store in etcd. It is safe for concurrent use, by
// goroutines and by other Stores on the same prefix in other processes.
type Store struct {
	client *clientv3.Client
	keys   keys
	where  string // endpoints and prefix, for messages
	logger *slog.Logger
	// compactEvery is Config.CompactEvery; clock times it.
	compactEvery time.Duration
	clock        clockwork.Clock
	// writer names this store in the guard key its Updates write, so that
	// its watch can leave them out (see Watch).
	writer string
	// createdAt is the revision at which Open created the store (wrote its
	// schema version under an empty prefix), or 0 (see Withdraw).
	createdAt int64
	// warm is what this store's Updates know from its last commits.
	warm warm
	// maxOps is how many operations the store believes one etcd
	// transaction takes: etcd's default --max-txn-ops (128), halved at
	// each request etcd refused as too large.
	maxOps atomic.Int64

	closeOnce sync.Once
	closeErr  error
}

// Open connects to etcd and checks, or writes, the schema version under the
// prefix.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if len(cfg.Endpoints) == 0 {
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "etcd store has no endpoints")
	}
	prefix := strings.TrimRight(cfg.Prefix, "/")
	if prefix == "" {
		prefix = DefaultPrefix
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	timeout := cfg.DialTimeout
	if timeout <= 0 {
		timeout = DefaultDialTimeout
	}
	where := strings.Join(cfg.Endpoints, ",") + prefix
	client, err := clientv3.New(clientv3.Config{
		Endpoints:   cfg.Endpoints,
		DialTimeout: timeout,
		TLS:         cfg.TLS,
		Username:    cfg.Username,
		Password:    cfg.Password,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("open etcd store %s: %w", where, err)
	}
	s := &Store{client: client, keys: keys{prefix}, where: where, logger: logger.With("component", "store"),
		writer:       rand.Text(),
		compactEvery: cfg.CompactEvery, clock: clockwork.NewRealClock()}
	s.maxOps.Store(DefaultMaxTxnOps)
	checkCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	found, err := s.initSchema(checkCtx)
	if err != nil {
		_ = client.Close()
		err = noSpace(err)
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return nil, fmt.Errorf("open etcd store %s: etcd did not answer within %v: is it running and reachable? (%w)", where, timeout, err)
		}
		return nil, fmt.Errorf("open etcd store %s: %w", where, err)
	}
	if found < SchemaVersion {
		if err := s.upgrade(ctx, found); err != nil {
			_ = client.Close()
			return nil, fmt.Errorf("open etcd store %s: upgrade from schema %d: %w", where, found, noSpace(err))
		}
	}
	return s, nil
}

// Client returns the etcd client of the store, for the parts that watch
// keys or elect a leader on the same cluster.
func (s *Store) Client() *clientv3.Client { return s.client }

// Prefix returns the key prefix of the store, without a trailing slash.
func (s *Store) Prefix() string { return s.keys.prefix }

// Close disconnects from etcd. Closing a closed store does nothing.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		if err := s.client.Close(); err != nil && !errors.Is(err, context.Canceled) {
			s.closeErr = fmt.Errorf("close etcd store %s: %w", s.where, err)
		}
	})
	return s.closeErr
}

// View runs fn on a snapshot: every read is made at the revision of the
// first. It fails at once if ctx is done.
func (s *Store) View(ctx context.Context, fn func(forewarn.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("read store: %w", err)
	}
	t := newTx(&snapshot{client: s.client, ctx: ctx, maxOps: &s.maxOps}, s.keys, false)
	defer t.close()
	return fn(t)
}

// Update runs fn in an optimistic transaction and commits it if fn returns
// nil; if another Update committed in the meantime (or a key the tx
// pinned changed), fn runs again on the new state. fn's own error comes
// back as it is, and nothing fn wrote is kept. An Update that writes
// nothing commits nothing. It fails at once if ctx is done. One Update
// writes at most etcd's --max-txn-ops keys (128 by default), its own
// bookkeeping key included.
func (s *Store) Update(ctx context.Context, fn func(forewarn.Tx) error) error {
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("update store: %w (%w)", err, forewarn.ErrUnavailable)
		}
		kv := newOptimistic(s.client, ctx, &s.warm, s.keys.updateGuard(), &s.maxOps)
		t := newTx(kv, s.keys, true)
		err := fn(t)
		t.close()
		if err != nil {
			return err
		}
		if len(kv.order) == 0 && len(kv.erased) == 0 {
			return nil // nothing to commit: fn read one snapshot, as in a View
		}
		committed, err := kv.commit(s.writer)
		if err != nil {
			return fmt.Errorf("update store: %w", err)
		}
		if committed {
			return nil
		}
	}
}
