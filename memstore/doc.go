// Package memstore is a forewarn.Store held in memory: what the fabric's
// tests, the deterministic simulation (internal/sim) and an embedded test
// server (forewarntest) use where a file or an etcd would only cost time.
//
// It passes the contract suite of every Store (storetest). Records are kept
// as JSON, through the same typed layer as bolt and etcd
// (internal/records), so that names match case-insensitively exactly as
// there, and every value read or written is a copy.
//
// Transactions are snapshots, as in bbolt: an Update works on a copy of the
// tables it writes (copy-on-write, a table at a time) and swaps them in
// when fn returns nil, so that fn sees its own writes and an error leaves
// nothing behind. Updates run one at a time; a View reads the state
// committed when it began and runs alongside Updates and other Views.
// Every write copies the table it touches: it is meant for fleets of
// thousands, not millions.
//
// Nothing survives the process. Close ends the store: later transactions
// fail.
package memstore
