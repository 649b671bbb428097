package main

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/forewarn/forewarn/imds"
)

// The timeouts and limits of every listener of serve (README, "Server
// timeouts and limits"). e2e/abuse_test.go relies on their values.
const (
	// readHeaderTimeout bounds the reading of a request line and its
	// headers, counted from the connection's accept (or from the first
	// bytes of a later request on a kept-alive connection): it cuts off
	// slowloris clients, which send a header byte now and then, and
	// connections that send nothing. A real client's headers fit in one
	// or two packets; 5 s also covers a TLS handshake, which net/http
	// bounds by the same value.
	readHeaderTimeout = 5 * time.Second
	// readTimeout bounds the reading of a whole request, headers and body,
	// counted from the same start: it cuts off a client that sends its body
	// a byte at a time. The largest body accepted (1 MiB on the admin API,
	// 64 KiB on the metadata endpoint) arrives in 10 s at 100 KiB/s.
	// net/http lifts this deadline once the body is read (at once for a GET,
	// which has none) to watch for the client going away, so a long-poll
	// held for 300 s is not cut by it.
	readTimeout = 10 * time.Second
	// idleTimeout closes a kept-alive connection no request has used for
	// this long. It is longer than the 90 s after which Go's clients (the
	// agent, the CLI) drop an idle connection themselves, so that they
	// close first and never send a request on a connection the server is
	// closing at that moment.
	idleTimeout = 120 * time.Second
	// maxHeaderBytes caps the request line and headers (net/http allows
	// 4 KiB more); beyond it the answer is 431. Real requests send well
	// under 1 KiB; without a cap net/http would take 1 MiB per connection.
	maxHeaderBytes = 16 << 10
)

// newHTTPServer returns the HTTP server of one of serve's listeners, with
// its timeouts and limits.
//
// There is no WriteTimeout: net/http counts it from the end of the
// request's headers, so it would cut the metadata endpoint's long-polls
// (up to 300 s, after a first-call delay that is a setting) and pprof's
// profiles of any length. The admin API bounds its own work to 15 s per
// request. An answer that fits in the kernel's socket buffers (the
// metadata endpoint's are a few KiB) does not wait for the client to read
// it, and idleTimeout then closes the connection of a client that never
// reads; only a larger answer (a long admin listing, /metrics) can hold its
// goroutine for as long as its client stalls.
//
// "OPTIONS *" reaches the handlers, which answer it as any unknown path
// (404), rather than net/http's own empty 200.
//
// A handler that holds requests open (the admin API's live streams) is
// told when the server shuts down, to answer them.
func newHTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	srv := &http.Server{
		Handler:                      closeHTTP10(h),
		ReadHeaderTimeout:            readHeaderTimeout,
		ReadTimeout:                  readTimeout,
		IdleTimeout:                  idleTimeout,
		MaxHeaderBytes:               maxHeaderBytes,
		DisableGeneralOptionsHandler: true,
		ErrorLog:                     slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	if sd, ok := h.(shutdowner); ok {
		srv.RegisterOnShutdown(sd.Shutdown)
	}
	return srv
}

// shutdowner is a handler that holds requests open and answers them when
// told the server is shutting down.
type shutdowner interface{ Shutdown() }

// metadataServer is the metadata endpoint's server: fasthttp, with the
// same timeouts and limits as the others, but for the read timeout, which
// counts from the end of the headers (README, "Design notes: the metadata
// endpoint on fasthttp").
type metadataServer struct {
	*fasthttp.Server
	endpoint *imds.Server
}

func newMetadataServer(endpoint *imds.Server, log *slog.Logger) metadataServer {
	srv := endpoint.FastServer(imds.Limits{
		HeaderTimeout:  readHeaderTimeout,
		BodyTimeout:    readTimeout,
		IdleTimeout:    idleTimeout,
		MaxHeaderBytes: maxHeaderBytes,
	}, log)
	return metadataServer{srv, endpoint}
}

// Shutdown answers the held long-polls, stops accepting connections and
// waits for the open ones to end, or for ctx to.
func (m metadataServer) Shutdown(ctx context.Context) error {
	m.endpoint.Shutdown()
	return m.ShutdownWithContext(ctx)
}

// closeHTTP10 closes the connection after every HTTP/1.0 request. RFC 9112
// 6.1 wants that of an HTTP/1.0 request with a Transfer-Encoding header,
// whose framing is ambiguous: net/http ignores the header and, for a client
// asking to keep the connection alive, would read what the client meant as
// a chunked body as its next request, one a proxy in front would not have
// seen (request smuggling). net/http gives handlers no sign of the header,
// so every HTTP/1.0 request pays: clients of this century speak HTTP/1.1.
func closeHTTP10(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor == 1 && r.ProtoMinor == 0 {
			w.Header().Set("Connection", "close")
		}
		h.ServeHTTP(w, r)
	})
}
