// Command baseline is the load benchmarks' yardstick (scripts/load.sh,
// scripts/fleet-load.sh, BENCHMARKS.md): the least a net/http server can do
// to answer a VM's GET of /metadata/scheduledevents as forewarn does. It
// checks the Metadata header and the api-version query, and answers a fixed
// body read once at start, with the headers forewarn sends, or 304 when
// If-None-Match names its ETag. It knows no VM, scope, event, rate limit or
// metric.
//
// It also long-polls as forewarn does (SPEC.md 3): a GET with
// wait_for_change=true and a last_etag that names the current ETag is held,
// up to timeout_sec, until POST /trigger changes the document; every held
// request is then answered 200 with the new one. A trigger keeps the body
// and tags it with the next incarnation ("3" becomes "4"), so that a load
// given forewarn's document after a change, tagged one less, gets the very
// bytes forewarn sent for that change.
//
//	baseline --body doc.json --etag '"3"' [--addr 127.0.0.1:0]
//
// It logs "listening addr=HOST:PORT" on stderr once it accepts connections,
// and stops on SIGINT or SIGTERM, answering the held long-polls first.
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
