// Package etcd is the forewarn.Store for many hosts: the state of the fleet
// lives in an etcd cluster, under a key prefix ("/forewarn" by default), so
// that every replica reads and writes the same scopes, VMs and events.
//
// # Layout
//
// Every key starts with the prefix:
//
//	<prefix>/meta/<key>          a setting (PutMeta), and "schema-version"
//	<prefix>/scopes/<name>       one JSON forewarn.Scope per lowercased name
//	<prefix>/vms/<name>          one JSON forewarn.VM per lowercased name
//	<prefix>/events/<id>         one JSON forewarn.Event per lowercased id
//	<prefix>/campaigns/<id>      one JSON forewarn.Campaign per lowercased id,
//	                             without its progress
//	<prefix>/campaign-plans/<id> the scopes the campaign walks, in order,
//	                             with their update domains: written once
//	<prefix>/campaign-scopes/<id>/<i>  the progress of the campaign's scope
//	                             i (a forewarn.ScopeProgress) once it moved
//	                             from where the plan has it, i zero-padded
//	                             to 8 digits
//	<prefix>/history/<seq>       a finished event, seq zero-padded to 20 digits
//	<prefix>/seq/history         the last history sequence number
//	<prefix>/vms-by-scope/<scope>/<vm>          index entries: the key
//	<prefix>/events-by-scope/<scope>/<id>       names a member, the value
//	<prefix>/vms-by-address/<address>/<vm>      is its lowercased name
//	<prefix>/seq/update          the guard key every Update writes
//
// Every write costs the size of its change, never of the fleet: etcd keeps
// every version of a key until it is compacted, so a value that grows with
// the fleet and is rewritten per event fills its database. A campaign's
// start puts its key and its plan, whatever the number of its scopes (a
// transaction's writes are bounded too); then a write puts only the scopes
// whose progress moved, and its own key only if its state did; a finished
// event puts its history entry and the
// sequence number, and trims the oldest entries with one range delete:
// their keys sort in the order of their numbers, and entries are only
// appended at the end and dropped from the front.
//
// Names and ids are lowercased in keys, so they are unique
// case-insensitively; the records keep the case they were written with.
// Settings are stored behind a one-byte "=" marker, so that an empty value
// differs from an unset key. Open writes the schema version into an empty
// prefix and checks it otherwise: a prefix written by a newer release is
// refused with an error wrapping forewarn.ErrSchema.
//
// # Transactions
//
// Update runs fn in an optimistic transaction: fn's reads, single keys and
// ranges, are made at one revision (the first read's), its writes are
// buffered (fn reads its own writes, also in ranges), and the commit is one
// etcd Txn that applies them only if the guard key, which every Update
// writes, has not changed since: no other Update committed in between.
// If one did, fn runs again on the new state. Comparing one key, not every
// key read, keeps the commit within etcd's bound on the operations of a
// request (--max-txn-ops) however large the fleet, and makes range reads
// as safe as single ones: a record another writer created between fn's
// list and its commit cannot go unnoticed. The price is that Updates are
// serialized, which a control plane that changes a few records at a time
// can afford; the leader's time-driven work is the main writer.
//
// An Update first reads the guard key. If it still holds what this Store's
// own last commit wrote, no other Update committed since, and the Update
// reads from what that commit and the ones before it left known (warm:
// the keys they read and wrote, the whole directories they read) rather
// than from etcd; otherwise warm starts again from what this Update knows.
// Keys outside the guard's reach (the leader's) are always read from etcd.
// An Update that writes nothing commits nothing. Tx.Writes says how many
// operations the commit would send and how many etcd takes (its default
// --max-txn-ops, halved at each request etcd refused as too large), for
// the scheduler to fill its transactions.
//
// A View reads at one revision, the one its first read saw, and never
// commits; it is a consistent snapshot. Ranges are read 500 keys a page,
// single keys 100 per request.
//
// Schema 2 replaced the JSON list of names per kind, which schema 1 kept in
// <prefix>/index/<kind>, with the index entries above. Schema 3 moved each
// campaign's progress out of its key into its plan and
// <prefix>/campaign-scopes/, and
// dropped <prefix>/index/history, the JSON list of the history's entries
// that every finished event rewrote. Open upgrades an older prefix (every
// replica must be stopped first).
//
// # One leader
//
// Lead elects the replica that does the time-driven work, with the
// election of the concurrency package under PREFIX/leader on a session of
// LeaderTTL seconds. Its fence pins the leader's key in the transaction: a
// transaction of a deposed leader fails with ErrConflict if the key is
// gone, and does not commit if it changes or goes before the commit.
//
// # Compaction
//
// etcd keeps every revision of every key until it is compacted, and by
// default never compacts. While a replica leads (Lead), it compacts etcd's
// key history every Config.CompactEvery (serve's --etcd-compact-every,
// DefaultCompactEvery: five minutes), at the revision etcd had at the tick
// before (at the start of the lead, the first time). Old revisions are
// read by a watch resuming after its connection was cut, and by a View or
// an Update, which read at their first read's revision: one less than an
// interval behind loses nothing. A watch further behind gets a compacted
// response and sends a Change with All set; a transaction that reads a
// compacted revision fails with ErrUnavailable. Compaction is of the whole
// etcd cluster, not only the prefix, and not physical; a history compacted
// further already (etcd's own --auto-compaction-retention) is no error.
// The store never defragments: that blocks a member while it runs, and is
// the operator's job (etcdctl defrag). Zero turns compaction off, for an
// etcd that compacts itself or that other applications share.
//
// # Out of space
//
// When etcd's database reaches its quota (--quota-backend-bytes, 2 GB by
// default), etcd raises its NOSPACE alarm and refuses every request that
// puts a key or grants a lease. Every write of the store (an Update's
// commit, the schema Open writes, Lead's lease and campaign, Join's
// announcement) then fails with an error wrapping forewarn.ErrUnavailable
// and rpctypes.ErrNoSpace, whose message names the quota and the fix. etcd
// refuses a whole request, so nothing of it is written. Every Update puts
// its guard key, so even one that only deletes is refused until the alarm
// is disarmed.
package etcd
