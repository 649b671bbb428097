package imds

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/httpstatus"
)

// DefaultRateLimit is the requests a second per VM that SPEC.md 5 gives
// (with a burst of twice that).
const DefaultRateLimit = 5

// DefaultLocation is the instance metadata "location" when Config has none.
const DefaultLocation = "local"

// maxBody is the largest POST body accepted (SPEC.md 4).
const maxBody = 64 << 10

// Config is what a Server needs.
type Config struct {
	// Metadata is the control plane: approvals and enabling. Required.
	// Its Enable must not keep its ctx once it has returned: the endpoint
	// may reuse it for a later request (see enableContext).
	Metadata forewarn.Metadata
	// Clock times the rate limiter and long-polls; nil means the real clock.
	Clock forewarn.Clock
	// RateLimit is the requests a second allowed per VM, with a burst of
	// twice that; 0 (or less) turns rate limiting off. Servers normally pass
	// DefaultRateLimit.
	RateLimit float64
	// Location is the instance metadata "location"; "" means DefaultLocation.
	Location string
	// Logger receives internal failures and warnings; nil discards them.
	Logger *slog.Logger
	// Registerer, if set, receives the request counter, the latency
	// histogram and the chaos counter.
	Registerer prometheus.Registerer
	// Rand draws the numbers in [0, 1) that decide which requests a chaos
	// rule hits; nil means math/rand/v2's Float64. Draws are serialized, so
	// a seeded generator (rand.New(rand.NewPCG(1, 2)).Float64) makes tests
	// deterministic.
	Rand func() float64
}

// Server is the metadata endpoint: an http.Handler that also receives the
// control plane's snapshots (forewarn.Publisher).
type Server struct {
	plane    forewarn.Metadata // the control plane
	clock    forewarn.Clock
	location string
	log      *slog.Logger
	limiter  *limiter
	metrics  *metrics

	// mu serialises publishing; scopes is read and written under it.
	mu     sync.Mutex
	scopes map[forewarn.Key]*scopeState
	// callers maps each address to its caller (netip.Addr to caller),
	// written under mu and read without a lock by every request: a
	// read-mostly sync.Map touches no shared cache line on a read, where
	// an RWMutex's reader count moves between cores.
	callers sync.Map

	// chaos holds the chaos rules published last; rand, guarded by randMu,
	// decides which requests they hit.
	chaos  atomic.Pointer[[]*forewarn.ChaosRule]
	randMu sync.Mutex
	rand   func() float64

	// statusWriters and enableContexts recycle the per-request objects
	// that would otherwise be allocated on every request.
	statusWriters  sync.Pool // of *httpstatus.Writer
	enableContexts sync.Pool // of *enableContext

	// done ends at Shutdown.
	done     context.Context
	shutdown context.CancelFunc
}

// New returns a Server that serves nothing until scopes are published. It
// panics if cfg.Metadata is nil.
func New(cfg Config) *Server {
	if cfg.Metadata == nil {
		panic("imds.New: Config.Metadata is nil")
	}
	s := &Server{
		plane:    cfg.Metadata,
		clock:    cfg.Clock,
		location: cfg.Location,
		log:      cfg.Logger,
		limiter:  newLimiter(cfg.RateLimit),
		scopes:   make(map[forewarn.Key]*scopeState),
		rand:     cfg.Rand,
	}
	s.done, s.shutdown = context.WithCancel(context.Background())
	if s.clock == nil {
		s.clock = clockwork.NewRealClock()
	}
	if s.rand == nil {
		s.rand = rand.Float64
	}
	if s.location == "" {
		s.location = DefaultLocation
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.log = s.log.With("component", "imds")
	m, err := newMetrics(cfg.Registerer)
	if err != nil {
		s.log.Error("metrics not registered", "err", err)
	}
	s.metrics = m
	return s
}

// Shutdown answers every held long-poll at once, and makes later long-polls
// answer at once. It does not close listeners; the http.Server does.
func (s *Server) Shutdown() {
	s.shutdown()
}

// shuttingDown reports whether Shutdown was called.
func (s *Server) shuttingDown() bool {
	return s.done.Err() != nil
}

// ServeHTTP answers a request to the metadata endpoint.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt, segs := parseRoute(r.URL.Path)
	sw := s.statusWriter(w)
	defer s.releaseStatusWriter(sw)
	var start time.Time
	if s.metrics != nil {
		start = s.clock.Now()
	}
	var poll answeredPoll
	defer s.finish(rt, sw, start, &poll)
	s.serve(sw, r, rt, segs, &poll)
}

// finish records the poll answered, if any, in its VM's record and the
// request in the metrics, at the time of the answer. The clock is read
// once for both, and not at all if neither needs it: a reading costs more
// than the rest of the recording (about 50 ns against 15 on a test VM).
func (s *Server) finish(rt route, sw *httpstatus.Writer, start time.Time, poll *answeredPoll) {
	if s.metrics == nil && poll.polls == nil {
		return
	}
	now := s.clock.Now()
	poll.record(now)
	if s.metrics != nil {
		s.metrics.observe(rt, sw.Status(), now.Sub(start))
	}
}

// statusWriter wraps w to record the status answered, reusing a wrapper
// from an earlier request: a ResponseWriter is not used once ServeHTTP has
// returned, so its wrapper is free for the next request then.
func (s *Server) statusWriter(w http.ResponseWriter) *httpstatus.Writer {
	sw, _ := s.statusWriters.Get().(*httpstatus.Writer)
	if sw == nil {
		sw = new(httpstatus.Writer)
	}
	*sw = httpstatus.Writer{ResponseWriter: w}
	return sw
}

// releaseStatusWriter recycles a wrapper once ServeHTTP is done with it.
func (s *Server) releaseStatusWriter(sw *httpstatus.Writer) {
	*sw = httpstatus.Writer{}
	s.statusWriters.Put(sw)
}

// serve answers the request; an answered poll of the document is left in
// poll.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, rt route, segs []string, poll *answeredPoll) {
	if rt == routeNone {
		writeError(w, errNotFound)
		return
	}
	if rt == routeEvents {
		w.Header()[longPollHeader] = longPollValue
	}
	if !rt.allows(r.Method) {
		writeError(w, methodNotAllowed(rt.allow()))
		return
	}
	var req request
	if aerr := s.admit(r, rt, &req); aerr != nil {
		writeError(w, aerr)
		return
	}
	if s.injectFault(w, r, rt, &req) {
		return
	}
	if aerr := s.rateLimit(r, req.caller, req.addr); aerr != nil {
		writeError(w, aerr)
		return
	}
	switch {
	case rt == routeEvents && r.Method == http.MethodPost:
		s.postEvents(w, r, &req)
	case rt == routeEvents:
		s.getEvents(w, r, &req, poll)
	case rt == routeInstance:
		s.getInstance(w, &req, segs)
	default:
		writePrepared(w, http.StatusOK, contentTypeJSONValue, versionsLength, versionsBody)
	}
}

// internalError logs err with the request and answers 500 with a generic
// text, unless the client has gone away.
func (s *Server) internalError(w http.ResponseWriter, r *http.Request, msg string, err error) {
	if r.Context().Err() != nil {
		s.log.Debug(msg+" (client gone)", "path", r.URL.Path, "remote", r.RemoteAddr, "err", err)
		return
	}
	s.log.Error(msg, "path", r.URL.Path, "remote", r.RemoteAddr, "err", err)
	writeError(w, errInternal)
}

// remoteAddr is the connection's source address, normalized, or the zero
// Addr if RemoteAddr is not an address and port.
func remoteAddr(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		// A bare address, as some listeners and tests give.
		a, err := netip.ParseAddr(strings.Trim(r.RemoteAddr, "[]"))
		if err != nil {
			return netip.Addr{}
		}
		return normalizeAddr(a)
	}
	return normalizeAddr(ap.Addr())
}
