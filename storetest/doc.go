// Package storetest is the contract every forewarn.Store implementation
// must meet, as a test suite: each implementation's tests call Run with a
// function that opens a fresh, empty store.
//
// Beyond what the forewarn.Store and forewarn.Tx doc comments say, the suite
// pins down these details, which callers may rely on:
//
//   - Names and event ids match case-insensitively; a record keeps the case
//     of its last Put, and a Put in another case replaces it.
//   - Scopes and VMs are ordered by their lowercased names; events oldest
//     first, by CreatedAt, then by ID.
//   - Deleting a missing record, like getting it, returns an error wrapping
//     forewarn.ErrNotFound whose message names the record.
//   - Putting a nil record or one without a name or id, and AppendHistory
//     with keep < 1, return an error wrapping forewarn.ErrInvalid.
//   - History(limit) with limit <= 0 returns the whole history.
//   - PutMeta with a nil value unsets the key; an empty, non-nil value is
//     a value like any other.
//   - Writes in a View fail and change nothing.
//   - The error of an Update's fn comes back from Update, with its
//     forewarn.Error message intact, and nothing fn wrote is kept.
//   - Records come back exactly as written, times to the nanosecond (times
//     are compared with ==, so the suite writes UTC times without a
//     monotonic reading), and are the caller's own copies.
package storetest
