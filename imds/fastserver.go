package imds

import (
	"log/slog"
	"time"

	"github.com/valyala/fasthttp"
)

// Limits are the timeouts and size limits of a listener (see FastServer).
type Limits struct {
	// HeaderTimeout bounds the reading of a request's line and headers,
	// counted from the connection's accept or, on a kept-alive connection,
	// from the request's first byte.
	HeaderTimeout time.Duration
	// BodyTimeout bounds the reading of the body, counted from the end of
	// the headers.
	BodyTimeout time.Duration
	// IdleTimeout closes a kept-alive connection no request has used for
	// this long.
	IdleTimeout time.Duration
	// MaxHeaderBytes caps the request line and headers; beyond it the
	// answer is 431.
	MaxHeaderBytes int
}

// idleWorker is how long fasthttp keeps the goroutine of a closed
// connection for another (at most twice that): not the 10 s of its
// default, so that a fleet's connections that close give their goroutines
// back soon (fleet-load.sh soak counts them).
const idleWorker = time.Second

// FastServer returns a fasthttp server of the endpoint with the limits l.
// It keeps no buffers for a connection between its requests
// (ReduceMemoryUsage), since a fleet's connections are idle all but a
// moment a second; it adds no Server or default Content-Type header, and
// logs what fasthttp logs (malformed requests, mostly) to log at Debug.
func (s *Server) FastServer(l Limits, log *slog.Logger) *fasthttp.Server {
	return &fasthttp.Server{
		Handler:      s.ServeFastHTTP,
		ErrorHandler: s.ServeFastError,
		HeaderReceived: func(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
			s.fastHeaderReceived(h)
			return fasthttp.RequestConfig{ReadTimeout: l.BodyTimeout}
		},
		ReadTimeout:                  l.HeaderTimeout,
		IdleTimeout:                  l.IdleTimeout,
		ReadBufferSize:               l.MaxHeaderBytes,
		MaxRequestBodySize:           maxBody,
		DisablePreParseMultipartForm: true,
		NoDefaultServerHeader:        true,
		NoDefaultContentType:         true,
		ReduceMemoryUsage:            true,
		MaxIdleWorkerDuration:        idleWorker,
		CloseOnShutdown:              true,
		Logger:                       slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
}
