package etcd

import (
	"testing"

	"github.com/jonboulle/clockwork"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// EmbeddedEndpoint returns the client address of the embedded etcd, for the
// external tests of the package.
func EmbeddedEndpoint() string { return endpoint }

// NewTestPrefix returns a prefix no other test uses.
func NewTestPrefix() string { return newPrefix() }

// MustOpen opens a store on prefix of the embedded etcd, closed on cleanup.
func MustOpen(tb testing.TB, prefix string) *Store { tb.Helper(); return mustOpen(tb, prefix) }

// Leader returns the id of the replica leading on the store's prefix, or
// "" if none does.
func Leader(tb testing.TB, s *Store) string {
	tb.Helper()
	resp, err := s.client.Get(tb.Context(), s.leaderPrefix()+"/", clientv3.WithPrefix(),
		clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend), clientv3.WithLimit(1))
	if err != nil {
		tb.Fatal(err)
	}
	if len(resp.Kvs) == 0 {
		return ""
	}
	return string(resp.Kvs[0].Value)
}

// RevokeLeader revokes the lease of the leader on the store's prefix, as
// if its host stopped answering for the lease time, and returns its id.
func RevokeLeader(tb testing.TB, s *Store) string {
	tb.Helper()
	resp, err := s.client.Get(tb.Context(), s.leaderPrefix()+"/", clientv3.WithPrefix(),
		clientv3.WithSort(clientv3.SortByCreateRevision, clientv3.SortAscend), clientv3.WithLimit(1))
	if err != nil {
		tb.Fatal(err)
	}
	if len(resp.Kvs) == 0 {
		tb.Fatal("no leader to revoke")
	}
	if _, err := s.client.Revoke(tb.Context(), clientv3.LeaseID(resp.Kvs[0].Lease)); err != nil {
		tb.Fatal(err)
	}
	return string(resp.Kvs[0].Value)
}

// SetClock makes the store time its compactions with c; call it before
// Lead.
func SetClock(s *Store, c clockwork.Clock) { s.clock = c }
