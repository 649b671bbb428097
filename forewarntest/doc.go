// Package forewarntest starts a complete forewarn inside a Go test, as
// net/http/httptest starts an HTTP server: the metadata endpoint and the
// admin API on loopback ports, the real control plane (fabric) over an
// in-memory store (memstore), and a fake clock the test moves with Advance.
//
//	srv := forewarntest.New(t)          // closed by t.Cleanup
//	srv.Fleet().CreateVM(ctx, forewarn.VMSpec{Name: "web-0"})
//	c := client.New(client.WithEndpoint(srv.URL), client.WithHTTPClient(srv.Client("web-0")))
//	srv.Fleet().Operate(ctx, "web-0", forewarn.OpRestart)
//	srv.Advance(15 * time.Minute)       // the restart starts, then ends
//
// # Which VM calls
//
// The metadata endpoint knows its caller by source address, as Azure's
// does. Fleet gives every VM created without an address one of its own in
// 127.1.0.0/16 (Linux routes all of 127.0.0.0/8 to the loopback
// interface), and Client returns an *http.Client that calls from its VM's
// address.
//
// # Time
//
// By default the clock is fake: it starts at Start and moves only with
// Advance, which steps it from deadline to deadline (an event's NotBefore,
// the end of its impact, a campaign's next step) and runs the control
// plane's scheduler at each, so that when Advance returns the state is what
// the time passed makes it. Every request to the metadata endpoint or the
// admin API also runs the scheduler before it answers: an event a VM
// approves has started when its POST returns. Long-polls end early only
// with a change or with Advance past their timeout.
//
// WithTimeScale uses the real clock instead, with time scaled as serve
// --time-scale does; the scheduler then runs on its own, as in serve, and
// Advance waits.
//
// # What differs from serve
//
// There is no host VM (serve creates one named after the host), no rate
// limit on the metadata endpoint, and no first-call delay. Scheduled
// Events are enabled for a scope by its VMs' first request, as on Azure,
// unless WithDev enables every scope from the start. With the fake clock
// the scheduler is not serve's loop but Advance and the requests: what
// serve does once a minute besides (storing when each scope last asked,
// for other replicas) does not happen, and Status names no leader.
package forewarntest
