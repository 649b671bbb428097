package admin

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/dashboard"
	"github.com/forewarn/forewarn/internal/httpstatus"
)

// Config is what a Server needs.
type Config struct {
	// Fleet is what the API serves. Required.
	Fleet forewarn.Fleet
	// Token is the bearer token every /v1/ request must carry. An empty
	// token refuses every /v1/ request.
	Token string
	// Gatherer is served at /metrics, without a token. If nil, /metrics
	// is not served.
	Gatherer prometheus.Gatherer
	// Registerer, if set, receives the API's own metrics.
	Registerer prometheus.Registerer
	// Logger receives failed requests (at error level) and every request
	// (at debug level). If nil, nothing is logged.
	Logger *slog.Logger
	// Polls, if set, is the poll record of the metadata endpoint this
	// process serves, answered at GET /v1/scopes/{name}/polls. If nil,
	// that route answers 404.
	Polls forewarn.PollLog
	// Hub, if set, feeds the live stream, GET /v1/stream; the control
	// plane must publish to it. If nil, the stream answers 404.
	Hub *Hub
	// Replica and Version name this server in the stream's hello and on
	// the dashboard.
	Replica string
	Version string
	// TrustedOrigins are origins (scheme://host[:port]) besides the admin
	// API's own from which changes made with the dashboard's cookie are
	// accepted: where a proxy that rewrites the Host header serves the
	// dashboard. NewServer panics on one CheckOrigin refuses.
	TrustedOrigins []string
	// RequestTimeout bounds the work of one API request: with etcd out of
	// reach, the caller gets a 503 rather than a request that hangs.
	// DefaultRequestTimeout if zero.
	RequestTimeout time.Duration
	// Clock gives the time of sessions and of the stream's serverTime,
	// from which the dashboard's countdowns are corrected; the real clock
	// if nil.
	Clock forewarn.Clock
}

// Server is the admin API, an http.Handler.
type Server struct {
	fleet    forewarn.Fleet
	timeout  time.Duration // of one API request
	token    tokenHash
	sessions *sessions
	// crossOrigin refuses changes made with the session cookie from
	// another site (cross-site request forgery).
	crossOrigin *http.CrossOriginProtection
	hub         *Hub
	polls       forewarn.PollLog
	clock       forewarn.Clock
	etags       map[string]string // of the dashboard's files, by path
	replica     string
	version     string
	mux         *http.ServeMux
	log         *slog.Logger
	metrics     *metrics
	// done ends the live streams when the server shuts down.
	done     context.Context
	shutdown context.CancelFunc
}

// NewServer returns the admin API serving cfg.Fleet. It panics if cfg.Fleet
// is nil.
func NewServer(cfg Config) *Server {
	if cfg.Fleet == nil {
		panic("admin.NewServer: Config.Fleet is nil")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	clock := cfg.Clock
	if clock == nil {
		clock = clockwork.NewRealClock()
	}
	s := &Server{
		fleet:       cfg.Fleet,
		token:       hashToken(cfg.Token),
		sessions:    newSessions(cfg.Token, clock.Now),
		clock:       clock,
		etags:       etags(dashboard.Static),
		crossOrigin: http.NewCrossOriginProtection(),
		hub:         cfg.Hub,
		polls:       cfg.Polls,
		replica:     cfg.Replica,
		version:     cfg.Version,
		mux:         http.NewServeMux(),
		timeout:     cmp.Or(cfg.RequestTimeout, DefaultRequestTimeout),
		log:         log.With("component", "admin"),
		metrics:     newMetrics(cfg.Registerer),
	}
	for _, origin := range cfg.TrustedOrigins {
		if err := s.crossOrigin.AddTrustedOrigin(origin); err != nil {
			panic("admin.NewServer: " + err.Error())
		}
	}
	s.done, s.shutdown = context.WithCancel(context.Background())
	if cfg.Token == "" {
		s.log.Error("admin API has no token: every /v1/ request will be refused")
	}
	s.routes(cfg.Gatherer)
	return s
}

// CheckOrigin checks an origin for Config.TrustedOrigins: scheme://host,
// with a port if need be, and nothing else.
func CheckOrigin(origin string) error {
	return http.NewCrossOriginProtection().AddTrustedOrigin(origin)
}

// Shutdown ends every live stream, and makes later ones end at once, so
// that an http.Server's Shutdown does not wait for them. It does not close
// listeners; the http.Server does.
func (s *Server) Shutdown() { s.shutdown() }

// ServeHTTP answers one request: it checks the token of /v1/ paths, routes
// the request, and answers unknown paths and methods in JSON.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	sw := &httpstatus.Writer{ResponseWriter: w}
	h, pattern := s.mux.Handler(r)
	s.serve(sw, r, h, pattern)
	route := pattern
	if route == "" {
		route = "unmatched"
	}
	elapsed := time.Since(start)
	s.metrics.observe(route, max(sw.Status(), http.StatusOK), elapsed)
	s.log.DebugContext(r.Context(), "request", "method", r.Method, "path", r.URL.Path,
		"route", route, "status", max(sw.Status(), http.StatusOK), "duration", elapsed)
}

// serve answers the request after the token check.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, h http.Handler, pattern string) {
	if needsToken(r.URL.Path) {
		if err := s.authorize(r); err != nil {
			if StatusCode(err) == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="forewarn"`)
			}
			s.writeError(w, r, err)
			return
		}
	}
	if pattern == "" {
		s.serveUnmatched(w, r, h)
		return
	}
	s.mux.ServeHTTP(w, r)
}
