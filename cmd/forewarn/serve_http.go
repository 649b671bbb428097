package main

import (
	"log/slog"
	"net/http"
	"time"
)

// newHTTPServer returns the HTTP server of one of serve's listeners, with
// its timeouts and limits.
func newHTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}
