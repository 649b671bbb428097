// Package sim is the deterministic simulation of forewarn's control plane,
// in the manner of FoundationDB's simulation and etcd's robustness tests.
//
// A run drives the real parts in-process from one seed: the fabric, the
// metadata endpoint (imds, through its http.Handler with a crafted source
// address per VM), the admin API (its handler, reached by the admin
// client through an in-process transport), fleet files, and restarts of
// the server over the same store with changed settings. Time moves only by
// a fake clock, in random steps, and the fabric's due work is done by
// calling Tick after each step, never by goroutines that race the driver;
// the actuator is a fake of exec whose runs succeed, fail or last until
// the retry bound, each decided by the seed, and released by the driver.
//
// A reference model (model*.go) predicts after every step what each VM's
// document holds and what each admin call answers; the checks (check*.go)
// compare it with what the system shows, and hold the invariants that do
// not need the model (incarnations, notice, bounded maintenance,
// campaigns, agreement of the listings, documents, history and
// publisher). A failing run is shrunk (shrink.go) to a short sequence of
// operations that still fails, printed with its seed.
//
// The test is internal/sim/sim_test.go; README.md says how to replay a seed.
package sim
