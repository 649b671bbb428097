package forewarntest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/fleetfile"
	"github.com/forewarn/forewarn/imds"
	"github.com/forewarn/forewarn/memstore"
)

// Server is a forewarn running in the test's process. Its methods are safe
// for concurrent use; those that fail the test (Client, Advance) must be
// called from the test's goroutine, as t.Fatal must.
type Server struct {
	// URL is the metadata endpoint's base, "http://127.0.0.1:PORT".
	URL string
	// AdminURL is the admin API's base, "http://127.0.0.1:PORT".
	AdminURL string
	// AdminToken is the admin API's bearer token.
	AdminToken string

	tb    testing.TB
	ctx   context.Context // the server's; ends at cleanup
	clock forewarn.Clock
	scale float64    // of the real clock
	sched *scheduler // with the fake clock; nil with the real one
	fab   *fabric.Fabric
	fleet *admin.Client

	mu         sync.Mutex
	transports []*http.Transport // of the clients handed out, closed at cleanup
	stops      []func()          // run in reverse order at cleanup
}

// shutdownTimeout bounds the wait for the requests in flight at cleanup.
const shutdownTimeout = 10 * time.Second

// New starts a Server, which t.Cleanup stops: its listeners close, held
// requests are answered, and no goroutine of it is left. New fails the test
// if the server cannot start.
func New(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	var cfg config
	for _, opt := range opts {
		opt(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if cfg.scaled && !(cfg.timeScale > 0 && !math.IsInf(cfg.timeScale, 1)) {
		cancel()
		tb.Fatalf("forewarntest: WithTimeScale(%v): want a finite number greater than 0", cfg.timeScale)
	}
	s := &Server{tb: tb, ctx: ctx, scale: cfg.timeScale}
	s.onStop(cancel)
	tb.Cleanup(s.stop)
	if err := s.start(cfg); err != nil {
		tb.Fatalf("forewarntest: %v", err)
	}
	return s
}

// start builds the server as serve does: the control plane over the store,
// publishing to the metadata endpoint and the admin API's live stream, and
// both on loopback listeners.
func (s *Server) start(cfg config) error {
	log := cfg.logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	store := memstore.New()
	s.onStop(func() { store.Close() })
	s.setClock(cfg.timeScale)
	meta, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	adm, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		meta.Close()
		return fmt.Errorf("listen: %w", err)
	}
	s.URL, s.AdminURL, s.AdminToken = "http://"+meta.Addr().String(), "http://"+adm.Addr().String(), rand.Text()
	reg := prometheus.NewRegistry()
	hub := admin.NewHub()
	s.fab, err = fabric.New(s.ctx, fabric.Config{
		Store: store, Clock: s.clock, TimeScale: cfg.timeScale, AlwaysEnabled: cfg.dev,
		Replica:   forewarn.Replica{MetadataAddr: meta.Addr().String(), AdminAddr: adm.Addr().String()},
		StoreName: "memory", Logger: log, Registerer: reg,
	})
	if err != nil {
		meta.Close()
		adm.Close()
		return fmt.Errorf("control plane: %w", err)
	}
	if s.sched == nil {
		s.run()
	} else {
		s.sched.fab = s.fab
	}
	endpoint := imds.New(imds.Config{Metadata: s.fab.Metadata(), Clock: s.clock, Logger: log, Registerer: reg})
	if err := s.fab.PublishTo(s.ctx, forewarn.Publishers{endpoint, hub}); err != nil {
		meta.Close()
		adm.Close()
		return fmt.Errorf("publish: %w", err)
	}
	fleet := newAddressing(s.fab)
	api := admin.NewServer(admin.Config{Fleet: fleet, Polls: endpoint, Token: s.AdminToken, Gatherer: reg, Registerer: reg,
		Logger: log, Hub: hub, Replica: s.fab.Replica().ID, Version: "forewarntest", Clock: s.clock})
	s.serve(meta, endpoint, endpoint.Shutdown)
	s.serve(adm, api, api.Shutdown)
	s.fleet = admin.NewClient(s.AdminURL, s.AdminToken,
		admin.WithHTTPClient(&http.Client{Transport: s.transport(&net.Dialer{}), Timeout: 30 * time.Second}))
	return s.applyFleet(cfg.fleetFile, fleet)
}

// setClock makes the server's clock: fake, unless the time is scaled.
func (s *Server) setClock(scale float64) {
	if scale > 0 {
		s.clock = clockwork.NewRealClock()
		return
	}
	fake := clockwork.NewFakeClockAt(Start)
	s.clock = fake
	s.sched = &scheduler{clock: fake}
}

// run runs the control plane's scheduler, as serve does, until cleanup.
func (s *Server) run() {
	ctx, cancel := context.WithCancel(s.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := s.fab.Run(ctx); err != nil && ctx.Err() == nil {
			s.tb.Errorf("forewarntest: control plane: %v", err)
		}
	}()
	s.onStop(func() { cancel(); <-done })
}

// serve serves h on ln until cleanup; shutdown answers the requests it
// holds (long-polls, live streams). With the fake clock, each request runs
// the scheduler before it answers.
func (s *Server) serve(ln net.Listener, h http.Handler, shutdown func()) {
	if s.sched != nil {
		h = settling{h: h, s: s}
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	srv.RegisterOnShutdown(shutdown)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			s.tb.Errorf("forewarntest: serve %s: %v", ln.Addr(), err)
		}
	}()
	s.onStop(func() {
		ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			s.tb.Errorf("forewarntest: shut down %s: %v", ln.Addr(), err)
		}
		<-done
	})
}

// applyFleet creates what the fleet file holds, if there is one.
func (s *Server) applyFleet(path string, fleet forewarn.Fleet) error {
	if path == "" {
		return nil
	}
	file, err := fleetfile.Load(path)
	if err != nil {
		return fmt.Errorf("WithFleetFile: %w", err)
	}
	if _, err := fleetfile.Apply(s.ctx, fleet, file, false); err != nil {
		return fmt.Errorf("fleet file %s: %w", path, err)
	}
	return s.settle()
}

// onStop adds fn to what cleanup does, before what was added earlier.
func (s *Server) onStop(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stops = append(s.stops, fn)
}

// stop stops the server: the HTTP servers, then the control plane, then
// the store; then it closes the idle connections of the clients handed out.
func (s *Server) stop() {
	s.mu.Lock()
	stops := s.stops
	s.stops = nil
	s.mu.Unlock()
	for i := len(stops) - 1; i >= 0; i-- {
		stops[i]()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.transports {
		t.CloseIdleConnections()
	}
}

// Fleet returns the admin API's client, logged in: what an operator does
// (scopes, VMs, user operations, approvals, campaigns, chaos). A VM it
// creates without an address gets one of its own (see Client).
func (s *Server) Fleet() forewarn.Fleet { return s.fleet }

// Now returns the time on the server's clock.
func (s *Server) Now() time.Time { return s.clock.Now() }
