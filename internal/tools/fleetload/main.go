// Command fleetload loads the metadata endpoint of a running `forewarn
// serve` as a fleet of VMs would (BENCHMARKS.md, issue 6; run by
// scripts/fleet-load.sh):
//
//	fleetload fleet    [layout flags]          # print the fleet file of a layout
//	fleetload longpoll -url URL -admin URL ... # one change seen by N long-polls
//	fleetload longpoll -url URL -trigger URL   # the same, the change a POST
//	fleetload poll     -url URL ...            # every VM polls once a second
//	fleetload soak     -url URL -admin URL ... # the same for 10 minutes, checked
//
// A layout names and addresses VMs by their index (PREFIX-S-V, calling from
// -base + i), so the fleet file given to `forewarn apply` and the load agree
// without asking the server. Every VM calls from its own 127.x address: the
// endpoint knows its caller by the connection's source address.
//
// longpoll opens -clients long-polls (wait_for_change=true, last_etag of the
// current document), each on its own connection, spread over the VMs of the
// layout's first scope; waits until the kernel's socket table shows every
// request accepted and read by the server, then -settle; restarts a VM of
// that scope through the admin API (the first without an event in flight),
// or with -trigger POSTs to that URL instead (the baseline's POST /trigger,
// internal/tools/baseline, which changes its document: the yardstick of
// the same load); and measures for each client the time from just before
// that call was sent until the new document reached the client's socket
// (the kernel's receive timestamp) and until the load had read it, the
// spread from the first answer, and, with -server-pid, the CPU time the
// server used meanwhile.
//
// poll runs one poller per VM, each on a keep-alive connection from its own
// address, GETting the document once an -interval (with If-None-Match, as
// the SDK polls Azure) for -duration, from a random start within the first
// interval. A poller named first in a Scheduled event's Resources approves
// it (POST StartRequests) with probability -approve. -burst-vms pollers fire
// one burst of -burst-size GETs once, to draw the rate limiter's 429s: those
// are the only 429s that are not errors.
//
// soak runs the poll load for a -warmup and then -duration (10 minutes)
// while it keeps maintenance going through the admin API: a campaign over
// every scope of the layout, the next as soon as the last is done, and a
// user operation (restart or redeploy) on a random VM every -op-every,
// every fourth one's event cancelled at the next. It reads every event
// the server created (the events in flight and the history, every
// -collect-every and at the end) and fails if a VM lost one: it polled
// -lag after an event of its scope was created (or started) and before it
// started (or ended), and never saw it Scheduled (or Started); if a VM
// was answered behind what its scope had already been shown; if a VM saw
// an event the server does not report, or a campaign's progress counts
// more or fewer events than it reports; if an approval answered 200 had
// not started its event; if the admin API answered an error other than
// the refusals the rules make (409); and if serve grew: after the warm-up
// and after the soak the VMs stop, and serve's /metrics is sampled until a
// garbage collection has run, the least goroutines and heap in use
// compared (-goroutine-growth, -heap-growth-pct, -heap-growth-mb).
//
// Each prints a short summary, or JSON with -json (the summary then goes to
// stderr), and exits 1 on an error answer, a transport error or a missing
// answer; a latency over its -target is marked MISS without failing.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
