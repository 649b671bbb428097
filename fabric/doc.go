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
package fabric
