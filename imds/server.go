package imds

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/forewarn/forewarn"
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

// Server is the metadata endpoint: an http.Handler, and a fasthttp handler
// (ServeFastHTTP), that also receives the control plane's snapshots
// (forewarn.Publisher).
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

	// enableContexts and fastCalls recycle the per-request objects that
	// would otherwise be allocated on every request.
	enableContexts sync.Pool // of *enableContext
	fastCalls      sync.Pool // of *fastCall
	// bodyHeaders holds the headers of requests whose bodies fasthttp is
	// reading (fastHeaderReceived).
	bodyHeaders sync.Map // of *fasthttp.RequestHeader to a copy

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

// ServeHTTP answers a request to the metadata endpoint carried by
// net/http.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var in incoming
	readHTTP(&in, w, r)
	var out reply
	x := s.answer(&in, &out)
	writeHTTP(w, &out)
	s.finish(&x, out.status)
}

// exchange is what finish records of an answered request.
type exchange struct {
	rt    route
	start time.Time
	// poll is the GET of the document answered, if any.
	poll answeredPoll
}

// answer answers in, into out; the engine writes out, then calls finish.
func (s *Server) answer(in *incoming, out *reply) exchange {
	var x exchange
	if s.metrics != nil || s.limiter != nil {
		// One reading for both (see finish).
		x.start = s.clock.Now()
		in.now = x.start
	}
	var segs []string
	x.rt, segs = parseRoute(in.path)
	s.serve(in, out, x.rt, segs, &x.poll)
	return x
}

// finish records the poll answered, if any, in its VM's record and the
// request in the metrics, at the time of the answer. The clock is read
// once for both, and not at all if neither needs it: a reading costs more
// than the rest of the recording (about 50 ns against 15 on a test VM).
func (s *Server) finish(x *exchange, status int) {
	if s.metrics == nil && x.poll.polls == nil {
		return
	}
	now := s.clock.Now()
	x.poll.record(now)
	if s.metrics != nil {
		s.metrics.observe(x.rt, status, now.Sub(x.start))
	}
}

// serve answers the request; an answered poll of the document is left in
// poll.
func (s *Server) serve(in *incoming, out *reply, rt route, segs []string, poll *answeredPoll) {
	if rt == routeNone {
		out.fail(errNotFound)
		return
	}
	out.longPoll = rt == routeEvents
	if !rt.allows(in.method) {
		out.fail(methodNotAllowed(rt.allow()))
		return
	}
	var req request
	if aerr := s.admit(in, rt, &req); aerr != nil {
		out.fail(aerr)
		return
	}
	if s.injectFault(in, out, rt, &req) {
		return
	}
	if aerr := s.rateLimit(in, req.caller, req.addr); aerr != nil {
		out.fail(aerr)
		return
	}
	switch {
	case rt == routeEvents && in.method == http.MethodPost:
		s.postEvents(in, out, &req)
	case rt == routeEvents:
		s.getEvents(in, out, &req, poll)
	case rt == routeInstance:
		s.getInstance(out, &req, segs)
	default:
		out.send(http.StatusOK, contentTypeJSON, versionsBody, versionsLength)
	}
}

// internalError logs err with the request and answers 500 with a generic
// text, unless the client has gone away.
func (s *Server) internalError(in *incoming, out *reply, msg string, err error) {
	if in.ctx.Err() != nil {
		s.log.Debug(msg+" (client gone)", "path", in.path, "remote", in.remote(), "err", err)
		return
	}
	s.log.Error(msg, "path", in.path, "remote", in.remote(), "err", err)
	out.fail(errInternal)
}
