// Command baseline is the load benchmark's yardstick (scripts/load.sh,
// BENCHMARKS.md): the least a net/http server can do to answer a VM's GET of
// /metadata/scheduledevents as forewarn does. It checks the Metadata header
// and the api-version query, and answers a fixed body read once at start,
// with the headers forewarn sends, or 304 when If-None-Match names its ETag.
// It knows no VM, scope, event, rate limit or metric.
//
//	baseline --body doc.json --etag '"3"' [--addr 127.0.0.1:0]
//
// It logs "listening addr=HOST:PORT" on stderr once it accepts connections,
// and stops on SIGINT or SIGTERM.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stderr)
	stop()
	os.Exit(code)
}
