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
//	<prefix>/campaigns/<id>      one JSON forewarn.Campaign per lowercased id
//	<prefix>/history/<seq>       a finished event, seq zero-padded to 20 digits
//	<prefix>/seq/history         the last history sequence number
//	<prefix>/index/<kind>        the JSON list of the lowercased names of one
//	                             kind (scopes, vms, events, campaigns), sorted,
//	                             or of the history's sequence numbers, oldest
//	                             first
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
// Update runs fn in a software transaction of the etcd client
// (concurrency.NewSTM, serializable snapshot isolation): fn's reads are made
// at one revision and remembered with their revisions, its writes are
// buffered (fn reads its own writes), and the commit is one etcd Txn whose
// conditions check that no key fn read or wrote changed since. If one did,
// another writer got there first: fn runs again on the new state. Two
// replicas that read a scope, bump its incarnation and write it back can
// therefore not lose an update or reuse an incarnation.
//
// A View reads at one revision, the one its first read saw, and never
// commits; it is a consistent snapshot.
//
// # Why an index per kind
//
// The STM reads single keys only; a range read would not be in its read set,
// so a record created by another writer between fn's list and its commit
// would go unnoticed (a phantom). Each kind therefore keeps its members in
// one index key, updated in the same transaction as the records it lists:
// a list is a read of the index and then of each member, all inside the
// transaction's conflict checks. Only creating or deleting a record touches
// the index; rewriting an existing record (the common case, such as a new
// incarnation) reads and writes that record's key only, so it does not
// conflict with writers of other records. The cost is that creations and
// deletions of one kind are serialized on its index key, which suits the
// fleet's sizes: hundreds of scopes and thousands of VMs, a few events in
// flight.
//
// # One leader
//
// Lead elects the replica that does the time-driven work, with the
// election of the concurrency package under PREFIX/leader on a session of
// LeaderTTL seconds. Its fence reads the leader's key inside the STM, so
// the key is in the read set: a transaction of a deposed leader fails with
// ErrConflict if the key is gone, and does not commit if it goes before
// the commit.
package etcd
