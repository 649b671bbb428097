package fabric

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/forewarn/forewarn"
)

// Config is what a Fabric needs. Zero fields take the defaults of DESIGN.md.
type Config struct {
	Store forewarn.Store
	Clock forewarn.Clock
	// TimeScale divides notice and simulated impact times; default 1.
	TimeScale float64
	// MaxUserOps is the limit of user operations in flight per scope;
	// default 10.
	MaxUserOps int
	// FirstCallDelay holds the first request of a scope that enables
	// Scheduled Events.
	FirstCallDelay time.Duration
	// EnableIdle is how long a scope stays enabled without a request;
	// default 24h.
	EnableIdle time.Duration
	// AlwaysEnabled enables every scope from the start (--dev).
	AlwaysEnabled bool
	// Actuator carries out started events; default Simulate, over Clock.
	Actuator forewarn.Actuator
	// HistoryKeep is how many finished events the history keeps; default
	// 10,000.
	HistoryKeep int
	// Replica is this replica as Status shows it, and as it announces
	// itself to the other replicas of a store that is a forewarn.Roster.
	// Its ID names it in the election of a store that is a
	// forewarn.Elector; default hostname and process id. Host, PID and
	// Started are filled in when zero.
	Replica forewarn.Replica
	// StoreName says in Status where the state lives, e.g. the path of the
	// bbolt file or the etcd endpoints and prefix.
	StoreName  string
	Logger     *slog.Logger
	Registerer prometheus.Registerer // may be nil
}

// Fabric is the control plane. It implements forewarn.Fleet for the admin
// API; Metadata returns what the metadata endpoint uses.
type Fabric struct {
	cfg     Config
	store   forewarn.Store
	clock   forewarn.Clock
	log     *slog.Logger
	metrics *metrics

	// mu serialises changes, so that snapshots are published in the order
	// of their commits.
	mu        lock
	publisher forewarn.Publisher
	// published holds the names of the scopes published, by key, and
	// inFlight the events in flight of each, as last published, for the
	// scheduler (pending).
	published map[forewarn.Key]string
	inFlight  map[forewarn.Key]scopeEvents
	// shownEnabled holds the published scopes that were shown enabled,
	// so that one whose requests stop is published again once it is not
	// (publishLapsed).
	shownEnabled map[forewarn.Key]*forewarn.Scope
	wake         chan struct{}
	// wholeRead is the last read of every scope, while nothing was
	// published since (PublishTo publishes it rather than read again), and
	// readRev the store revision it read at, if the store tells it (follow
	// watches from there rather than read again); f.mu guards both.
	wholeRead *changes
	readRev   int64

	enabling enabling
	group    group
	acts     actuations
	leading  atomic.Bool // runs the time-driven work

	// advanceBatch is how many scopes an advance of a campaign schedules
	// at most, and dueBatch how many due events a transaction starts or
	// completes: maxAdvanceBatch and maxDueBatch, halved while the store
	// finds a transaction too large (shrink).
	advanceBatch, dueBatch atomic.Int64
	// campaignsDue says the campaigns may move on: an event ended, a
	// campaign or a scope changed, here or on another replica. The
	// scheduler advances them only then, as an advance reads every scope
	// of every campaign.
	campaignsDue atomic.Bool
	// settled holds the ids of the campaigns that will not move again
	// (unsettled).
	settled sync.Map
}

var _ forewarn.Fleet = (*Fabric)(nil)

// New returns a Fabric over the store, with the metrics of every scope's
// events loaded; PublishTo connects it to the metadata endpoint.
func New(ctx context.Context, cfg Config) (*Fabric, error) {
	if cfg.Store == nil || cfg.Clock == nil {
		return nil, fmt.Errorf("fabric: a store and a clock are required")
	}
	if cfg.TimeScale <= 0 {
		cfg.TimeScale = 1
	}
	if cfg.MaxUserOps <= 0 {
		cfg.MaxUserOps = forewarn.DefaultMaxUserOps
	}
	if cfg.EnableIdle <= 0 {
		cfg.EnableIdle = forewarn.DefaultEnableIdle
	}
	if cfg.Actuator == nil {
		cfg.Actuator = Simulate{Clock: cfg.Clock}
	}
	if cfg.HistoryKeep <= 0 {
		cfg.HistoryKeep = forewarn.DefaultHistoryKeep
	}
	cfg.Replica = completeReplica(cfg.Replica, cfg.Clock.Now())
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	f := &Fabric{
		cfg:          cfg,
		store:        cfg.Store,
		clock:        cfg.Clock,
		log:          cfg.Logger.With("component", "fabric"),
		metrics:      newMetrics(cfg.Registerer),
		mu:           make(lock, 1),
		wake:         make(chan struct{}, 1),
		published:    map[forewarn.Key]string{},
		inFlight:     map[forewarn.Key]scopeEvents{},
		shownEnabled: map[forewarn.Key]*forewarn.Scope{},
		enabling:     newEnabling(),
		acts:         actuations{running: map[runKey]context.CancelFunc{}, wanted: map[runKey]bool{}},
	}
	f.advanceBatch.Store(maxAdvanceBatch)
	f.dueBatch.Store(maxDueBatch)
	f.campaignsDue.Store(true)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.publishAll(ctx); err != nil {
		return nil, err
	}
	return f, nil
}

// scaled divides a duration by the time scale.
func (f *Fabric) scaled(d time.Duration) time.Duration {
	return time.Duration(float64(d) / f.cfg.TimeScale)
}

// view runs fn in a read-only transaction, timed.
func (f *Fabric) view(ctx context.Context, fn func(forewarn.Tx) error) error {
	defer f.metrics.observeStore("view", time.Now())
	return f.store.View(ctx, fn)
}

// update runs fn in a read-write transaction, fenced if ctx is the
// leader's (see withFence), then publishes the scopes it changed and wakes
// the scheduler.
func (f *Fabric) update(ctx context.Context, fn func(*txn) error) error {
	if err := f.mu.LockContext(ctx); err != nil {
		// Another change holds the store, which does not answer: the
		// caller (an admin request, a VM's) gets its answer in its time.
		return fmt.Errorf("wait for the store: %w (%w)", err, forewarn.ErrUnavailable)
	}
	defer f.mu.Unlock()
	var t *txn
	fence := fenceOf(ctx)
	start := time.Now() // latency is measured in real time, whatever the clock
	err := f.store.Update(ctx, func(tx forewarn.Tx) error {
		if err := fence(tx); err != nil {
			return err
		}
		t = newTxn(tx, f.clock.Now(), f.cfg.HistoryKeep)
		if err := fn(t); err != nil {
			return err
		}
		return t.changes.collect(t.readCache)
	})
	f.metrics.observeStore("update", start)
	if err != nil {
		return err
	}
	c := t.changes
	f.publish(c)
	if c.wakeup || len(c.touched) > 0 || len(c.deleted) > 0 {
		f.poke()
	}
	return nil
}

// poke wakes the scheduler: it may have new work.
func (f *Fabric) poke() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}
