package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jonboulle/clockwork"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/imds"
)

// t0 is when every run begins, mid-second to exercise the rounding of
// NotBefore.
var t0 = time.Date(2027, 3, 1, 9, 0, 0, 250_000_000, time.UTC)

// settleTimeout bounds, in real time, the wait for the actuator's
// goroutines: they take microseconds, so running out of it means the
// fabric did not start a run the model expects. The shrinker waits less:
// a candidate wrongly rejected only shrinks less.
var settleTimeout = 2 * time.Second

// serverConf is what a restart may change.
type serverConf struct {
	TimeScale     float64
	AlwaysEnabled bool // --dev
	Actuator      bool // the fake exec; false simulates (nil actuator)
	MaxUserOps    int
}

func (c serverConf) String() string {
	act := "simulate"
	if c.Actuator {
		act = "exec"
	}
	return fmt.Sprintf("scale=%g dev=%t actuator=%s max-user-ops=%d", c.TimeScale, c.AlwaysEnabled, act, c.MaxUserOps)
}

// defaultHost is the host name of the server's default VM.
const defaultHost = "simhost"

// defaultAddrs are the default VM's addresses.
var defaultAddrs = []string{"127.0.0.1", "::1"}

// world is the system under test: one server (fabric, metadata endpoint,
// admin API) over a store, and what outlives its restarts.
type world struct {
	ctx   context.Context
	seed  uint64
	clock *clockwork.FakeClock
	// metaClock is the clock of the VMs' endpoint: it says when a request
	// waits on a timer (a chaos delay holds it).
	metaClock *timerClock
	opens     storeOpener
	store     *countingStore
	rec       *recorder
	runs      *runs
	chaos     *rand.Rand // decides which requests chaos hits

	conf  serverConf
	fab   *fabric.Fabric
	stop  context.CancelFunc
	fctx  context.Context // the server's; ends at its restart
	act   *actuator       // nil when the server simulates
	meta  *imds.Server    // what the VMs call
	obs   *imds.Server    // the checker's view of the same documents
	fleet forewarn.Fleet  // the admin API, through its handler
}

// storeOpener opens the store of a run, again at each restart.
type storeOpener interface {
	open(ctx context.Context) (forewarn.Store, error)
	// reopens says a restart closes the store and opens it again.
	reopens() bool
}

func newWorld(ctx context.Context, seed uint64, opens storeOpener, conf serverConf) (*world, error) {
	var key [32]byte
	for i := range 8 {
		key[i] = byte(seed >> (8 * i))
	}
	uuid.SetRand(rand.NewChaCha8(key))
	w := &world{
		ctx:   ctx,
		seed:  seed,
		clock: clockwork.NewFakeClockAt(t0),
		opens: opens,
		rec:   newRecorder(),
		runs:  &runs{seed: seed, attempts: map[string]int{}, ok: map[string]bool{}},
		chaos: rand.New(rand.NewPCG(seed, 3)),
	}
	w.metaClock = &timerClock{Clock: w.clock, timers: make(chan struct{}, 16)}
	if err := w.start(conf); err != nil {
		return nil, err
	}
	return w, nil
}

// start starts a server with conf, stopping the one before if any.
func (w *world) start(conf serverConf) error {
	if w.fab != nil {
		if err := w.halt(); err != nil {
			return err
		}
	}
	if w.store == nil || w.opens.reopens() {
		s, err := w.opens.open(w.ctx)
		if err != nil {
			return fmt.Errorf("open store: %w", err)
		}
		w.store = &countingStore{Store: s, poke: make(chan struct{}, 1)}
	}
	w.conf = conf
	w.fctx, w.stop = context.WithCancel(w.ctx)
	cfg := fabric.Config{
		Store: w.store, Clock: w.clock, TimeScale: conf.TimeScale, MaxUserOps: conf.MaxUserOps,
		AlwaysEnabled: conf.AlwaysEnabled,
	}
	w.act = nil
	if conf.Actuator {
		w.act = newActuator(w.clock, w.runs)
		cfg.Actuator = w.act
	}
	f, err := fabric.New(w.fctx, cfg)
	if err != nil {
		return fmt.Errorf("new fabric: %w", err)
	}
	if _, err := f.EnsureDefaultVM(w.fctx, defaultHost, defaultAddrs); err != nil {
		return fmt.Errorf("default vm: %w", err)
	}
	w.fab = f
	w.meta = imds.New(imds.Config{Metadata: f.Metadata(), Clock: w.metaClock, Rand: w.chaos.Float64})
	w.obs = imds.New(imds.Config{Metadata: observer{}, Clock: w.clock})
	if err := f.PublishTo(w.fctx, fanout{all: []forewarn.Publisher{w.rec, w.meta, w.obs}, observer: w.obs}); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	srv := admin.NewServer(admin.Config{Fleet: f, Token: "sim", Clock: w.clock})
	w.fleet = admin.NewClient("http://admin.sim", "sim",
		admin.WithHTTPClient(&http.Client{Transport: handlerTransport{srv}}))
	return nil
}

// halt stops the server as a crash would: its context ends, and the runs
// of its actuator with it, which record nothing.
func (w *world) halt() error {
	w.stop()
	if w.act != nil {
		if err := waitFor(w.act.poke, func() bool { n, _ := w.act.pending(); return n == 0 }); err != nil {
			return fmt.Errorf("the actuator's runs did not stop with the server")
		}
	}
	if w.opens.reopens() {
		if err := w.store.Close(); err != nil {
			return fmt.Errorf("close store: %w", err)
		}
	}
	return nil
}

// close ends the run.
func (w *world) close() {
	if w.fab != nil {
		_ = w.halt()
		if !w.opens.reopens() {
			_ = w.store.Close()
		}
	}
	uuid.SetRand(nil)
}

// waitFor waits, at most settleTimeout of real time, until cond holds,
// checking it again whenever poke fires.
func waitFor(poke <-chan struct{}, cond func() bool) error {
	deadline := time.After(settleTimeout)
	for !cond() {
		select {
		case <-poke:
		case <-time.After(time.Millisecond):
		case <-deadline:
			if cond() {
				return nil
			}
			return fmt.Errorf("timed out")
		}
	}
	return nil
}

// countingStore counts the Updates that returned, so that the driver can
// wait for the one each released run of the actuator makes.
type countingStore struct {
	forewarn.Store
	mu      sync.Mutex
	updates int
	poke    chan struct{}
}

func (s *countingStore) Update(ctx context.Context, fn func(forewarn.Tx) error) error {
	err := s.Store.Update(ctx, fn)
	s.mu.Lock()
	s.updates++
	s.mu.Unlock()
	select {
	case s.poke <- struct{}{}:
	default:
	}
	return err
}

func (s *countingStore) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.updates
}

// handlerTransport sends the admin client's requests to the handler, in
// the same goroutine.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body == nil {
		r.Body = http.NoBody // as a server's requests have
	}
	r.RemoteAddr = "127.0.0.1:50000"
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// observer is the Metadata of the checker's endpoint: its requests enable
// nothing and approve nothing.
type observer struct{}

func (observer) Approve(context.Context, string, []string) error {
	return forewarn.Errorf(forewarn.ErrInvalid, "the observer approves nothing")
}

func (observer) Enable(context.Context, string) error { return nil }

// timerClock is a clock that tells, on timers, each time a timer is made.
type timerClock struct {
	clockwork.Clock
	timers chan struct{}
}

func (c *timerClock) NewTimer(d time.Duration) clockwork.Timer {
	t := c.Clock.NewTimer(d)
	select {
	case c.timers <- struct{}{}:
	default:
	}
	return t
}

// drain forgets the timers made so far.
func (c *timerClock) drain() {
	for {
		select {
		case <-c.timers:
		default:
			return
		}
	}
}
