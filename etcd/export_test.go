package etcd

import "testing"

// EmbeddedEndpoint returns the client address of the embedded etcd, for the
// external tests of the package.
func EmbeddedEndpoint() string { return endpoint }

// NewTestPrefix returns a prefix no other test uses.
func NewTestPrefix() string { return newPrefix() }

// MustOpen opens a store on prefix of the embedded etcd, closed on cleanup.
func MustOpen(tb testing.TB, prefix string) *Store { tb.Helper(); return mustOpen(tb, prefix) }
