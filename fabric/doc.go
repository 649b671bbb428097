// Package fabric is the control plane: it owns every rule of SPEC.md 6, 8
// and 9. It creates events for user operations with the notice of their
// type, enforces the limit of operations in flight per scope, starts events
// when approved or at NotBefore, applies their simulated impact, completes
// them into the history, and tracks which scopes have enabled Scheduled
// Events.
//
// Every change goes through the Store in one transaction that also bumps
// the incarnation of each scope whose events changed; after the commit the
// new state of those scopes is published to the metadata endpoint. Time
// comes only from the injected clock: Tick does the work that is due, and
// Run calls it whenever the next deadline passes.
//
// # Reading order
//
// A change: an exported method (operate.go, events.go, vms.go, scopes.go,
// create_batch.go, defaultvm.go, campaigns.go, hardware.go, chaos.go)
// calls update (fabric.go, serialised by lock.go) with a function of a txn
// (txn.go): the store's transaction read through a
// readCache (readcache.go), which notes what it changed in changes
// (changes.go). An event moves through lifecycle.go (start, approve,
// finish); the numbers it takes are the root package's rules.go, and
// which event a user operation makes is rules.go here. After the commit,
// publish (publish.go) hands the changes to the metadata endpoint, the
// dashboard's hub, the metrics and the scheduler.
//
// Time: Tick (tick.go) starts and completes the events that are due, from
// what was last published, advances the campaigns (campaign_advance.go)
// and runs the actuator (actuate.go). The leader alone does this
// (leader.go); the other replicas follow its commits (watch.go). A VM's
// requests enable its scope (enable.go) through the Metadata the endpoint
// calls (metadata.go). Without an actuator, simulate.go carries events
// out. When a store refuses a transaction as too large, batchsize.go
// halves the batches.
//
// Reads: the listings page through list.go (events, VMs) and history.go;
// status.go says what the replicas are; metrics.go counts what each change
// did.
package fabric
