package client_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/bolt"
	"github.com/forewarn/forewarn/client"
	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/imds"
	"github.com/jonboulle/clockwork"
)

// serverWait bounds every wait of these tests on the real server: generous,
// since it only fires when something is broken.
const serverWait = 30 * time.Second

// hostVM is the name of the server's default VM, the one 127.0.0.1 is.
const hostVM = "host"

// gate is an Actuator that lets the test decide when a started event
// completes: each Actuate waits for one release.
type gate struct{ release chan struct{} }

func newGate() *gate { return &gate{release: make(chan struct{})} }

// Actuate waits for a release, or for the control plane to stop.
func (g *gate) Name() string { return "gate" }

func (g *gate) Actuate(ctx context.Context, _ *forewarn.Event, _ *forewarn.VM) error {
	select {
	case <-g.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// open lets one started event complete.
func (g *gate) open(tb testing.TB) {
	tb.Helper()
	select {
	case g.release <- struct{}{}:
	case <-time.After(serverWait):
		tb.Fatal("no event is being actuated")
	}
}

// server is a forewarn server in process: store, control plane, metadata
// endpoint on loopback. It can stop and start again on the same address and
// store file.
type server struct {
	tb        testing.TB
	path      string
	addr      string
	actuator  forewarn.Actuator
	timeScale float64

	store  *bolt.Store
	fab    *fabric.Fabric
	md     *imds.Server
	http   *http.Server
	cancel context.CancelFunc
	ran    chan error
}

// startServer starts a server on a new store in tb's temporary directory,
// its default VM at 127.0.0.1, with times divided by timeScale (600 makes
// the notice of a restart 1.5s). A nil actuator simulates the impact of
// events. The server stops at cleanup.
func startServer(tb testing.TB, actuator forewarn.Actuator, timeScale float64) *server {
	tb.Helper()
	s := &server{tb: tb, path: filepath.Join(tb.TempDir(), "forewarn.db"), addr: "127.0.0.1:0",
		actuator: actuator, timeScale: timeScale}
	s.start()
	tb.Cleanup(s.stop)
	return s
}

// URL is the base URL of the metadata endpoint.
func (s *server) URL() string { return "http://" + s.addr }

// start opens the store and serves on s.addr.
func (s *server) start() {
	s.tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	store, err := bolt.Open(s.path, bolt.Options{})
	if err != nil {
		s.tb.Fatalf("open store: %v", err)
	}
	fab, err := fabric.New(ctx, fabric.Config{Store: store, Clock: clockwork.NewRealClock(),
		AlwaysEnabled: true, TimeScale: s.timeScale, Actuator: s.actuator})
	if err != nil {
		s.tb.Fatalf("fabric: %v", err)
	}
	md := imds.New(imds.Config{Metadata: fab.Metadata(), Clock: clockwork.NewRealClock()})
	if err := fab.PublishTo(ctx, md); err != nil {
		s.tb.Fatalf("publish: %v", err)
	}
	if _, err := fab.EnsureDefaultVM(ctx, hostVM, []string{"127.0.0.1"}); err != nil {
		s.tb.Fatalf("default VM: %v", err)
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		s.tb.Fatalf("listen: %v", err)
	}
	s.addr = ln.Addr().String()
	s.store, s.fab, s.md, s.cancel = store, fab, md, cancel
	s.ran = make(chan error, 1)
	go func() { s.ran <- fab.Run(ctx) }()
	s.http = &http.Server{Handler: md, ReadHeaderTimeout: 10 * time.Second}
	go s.http.Serve(ln)
}

// stop shuts the server down as forewarn serve does; stopping a stopped
// server does nothing.
func (s *server) stop() {
	s.tb.Helper()
	if s.http == nil {
		return
	}
	s.md.Shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), serverWait)
	defer cancel()
	if err := s.http.Shutdown(ctx); err != nil {
		s.tb.Errorf("http shutdown: %v", err)
	}
	s.cancel()
	if err := <-s.ran; err != nil && !errors.Is(err, context.Canceled) {
		s.tb.Errorf("fabric run: %v", err)
	}
	if err := s.store.Close(); err != nil {
		s.tb.Errorf("close store: %v", err)
	}
	s.http = nil
}

// restart stops the server and starts it again on the same address and
// store file.
func (s *server) restart() {
	s.tb.Helper()
	s.stop()
	s.start()
}

// restartVM schedules a restart of the host VM and returns its event.
func (s *server) restartVM(ctx context.Context) *forewarn.Event {
	s.tb.Helper()
	e, err := s.fab.Operate(ctx, hostVM, forewarn.OpRestart)
	if err != nil {
		s.tb.Fatalf("schedule a restart: %v", err)
	}
	return e
}

// chaos adds a chaos rule for the next minute, removed at cleanup.
func (s *server) chaos(ctx context.Context, status int, fraction float64) {
	s.tb.Helper()
	rule, err := s.fab.AddChaos(ctx, forewarn.ChaosSpec{Status: status, Fraction: fraction,
		For: forewarn.Duration(time.Minute)})
	if err != nil {
		s.tb.Fatalf("add chaos: %v", err)
	}
	s.tb.Cleanup(func() {
		if s.http != nil {
			s.fab.DeleteChaos(context.Background(), rule.ID)
		}
	})
}

// newClient returns a client of s with quick retries.
func newClient(s *server, opts ...client.Option) *client.Client {
	opts = append([]client.Option{client.WithEndpoint(s.URL()), client.WithRetry(30, 5*time.Millisecond)}, opts...)
	return client.New(opts...)
}

// testCtx ends with the test or after serverWait.
func testCtx(tb testing.TB) context.Context {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*serverWait)
	tb.Cleanup(cancel)
	return ctx
}

// watch runs c.Watch until the test ends, sending every document on the
// channel returned; stop ends it and returns every incarnation delivered.
type watch struct {
	tb     testing.TB
	docs   chan *client.Document
	seen   []int
	cancel context.CancelFunc
	done   chan error
}

// startWatch starts a Watch of c.
func startWatch(tb testing.TB, c *client.Client) *watch {
	tb.Helper()
	ctx, cancel := context.WithCancel(testCtx(tb))
	w := &watch{tb: tb, docs: make(chan *client.Document, 1000), cancel: cancel, done: make(chan error, 1)}
	go func() {
		w.done <- c.Watch(ctx, func(d *client.Document) error {
			w.docs <- d
			return nil
		})
	}()
	tb.Cleanup(func() { w.stop() })
	return w
}

// next waits for a document that satisfies ok, skipping others.
func (w *watch) next(what string, ok func(*client.Document) bool) *client.Document {
	w.tb.Helper()
	timeout := time.After(serverWait)
	for {
		select {
		case d := <-w.docs:
			w.seen = append(w.seen, d.DocumentIncarnation)
			if ok(d) {
				return d
			}
		case <-timeout:
			w.tb.Fatalf("Watch delivered no document with %s; incarnations so far %v", what, w.seen)
			return nil
		}
	}
}

// stop ends the Watch and returns every incarnation it delivered.
func (w *watch) stop() []int {
	w.tb.Helper()
	if w.cancel == nil {
		return w.seen
	}
	w.cancel()
	w.cancel = nil
	if err := <-w.done; !errors.Is(err, context.Canceled) {
		w.tb.Errorf("Watch returned %v, want context.Canceled", err)
	}
	close(w.docs)
	for d := range w.docs {
		w.seen = append(w.seen, d.DocumentIncarnation)
	}
	return w.seen
}

// hasEvent matches a document in which event id has status.
func hasEvent(id, status string) func(*client.Document) bool {
	return func(d *client.Document) bool {
		for _, e := range d.Events {
			if e.EventId == id && e.EventStatus == status {
				return true
			}
		}
		return false
	}
}

// noEvents matches a document without events.
func noEvents(d *client.Document) bool { return len(d.Events) == 0 }
