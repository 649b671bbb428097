package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

// options are the command line's flags.
type options struct {
	addr   string
	body   string
	etag   string
	engine string
}

// parseFlags reads the command line.
func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("baseline", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.addr, "addr", "127.0.0.1:0", "listen on this address (port 0: any free port)")
	fs.StringVar(&o.body, "body", "", "file of the body to answer (required)")
	fs.StringVar(&o.etag, "etag", `"1"`, "the ETag header, quotes included")
	fs.StringVar(&o.engine, "engine", "nethttp", "the HTTP engine: nethttp, or fasthttp (GET and 304 only, no long-poll)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.body == "" {
		return o, errors.New("--body is required")
	}
	if o.engine != "nethttp" && o.engine != "fasthttp" {
		return o, fmt.Errorf("--engine %q: want nethttp or fasthttp", o.engine)
	}
	return o, nil
}

// run serves until ctx is done, and returns the exit code.
func run(ctx context.Context, args []string, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "baseline: %v\n", err)
		return 2
	}
	if err := serve(ctx, o, stderr); err != nil {
		fmt.Fprintf(stderr, "baseline: %v\n", err)
		return 1
	}
	return 0
}

// serve reads the body, listens, and answers until ctx is done.
func serve(ctx context.Context, o options, stderr io.Writer) error {
	body, err := os.ReadFile(o.body)
	if err != nil {
		return fmt.Errorf("read body: %w", err)
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	if o.engine == "fasthttp" {
		return serveFast(ctx, ln, body, o.etag, stderr)
	}
	h := newHandler(body, o.etag)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	srv.RegisterOnShutdown(h.stop) // answer the held long-polls, or Shutdown waits for them
	fmt.Fprintf(stderr, "listening addr=%s\n", ln.Addr())
	return serveUntil(ctx, func() error { return srv.Serve(ln) }, srv.Shutdown)
}

// serveUntil runs serve until it fails or ctx is done, then shuts down,
// giving the requests in flight 5 s.
func serveUntil(ctx context.Context, serve func() error, shutdown func(context.Context) error) error {
	errc := make(chan error, 1)
	go func() { errc <- serve() }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	return nil
}
