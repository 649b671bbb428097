package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
)

// listenPprof opens the listener of --pprof-addr, or returns nil if it is
// not set. The profiles have no token: keep the address on loopback.
func (o *serveOptions) listenPprof() (net.Listener, error) {
	if o.pprofAddr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", o.pprofAddr)
	if err != nil {
		return nil, fmt.Errorf("pprof listener: %w", err)
	}
	return ln, nil
}

// pprofHandler serves the profiles of net/http/pprof under /debug/pprof/.
func pprofHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
