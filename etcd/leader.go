package etcd

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/forewarn/forewarn"
)

// LeaderTTL is the time to live, in seconds, of the lease a leader holds:
// when a leader dies, another replica takes over within it.
const LeaderTTL = 10

var _ forewarn.Elector = (*Store)(nil)

// Lead campaigns in the election of the prefix until this replica, named
// id, leads or ctx ends. The returned context ends when the lease of the
// leader is lost (its keep-alives failed for LeaderTTL seconds, or it was
// revoked) or when ctx ends, and then the lease is revoked, so that
// another replica takes over at once. The fence reads the leader's key in
// the transaction: the transaction fails with ErrConflict if the key is
// gone, and does not commit if the key changes before it does. While it
// leads, the replica compacts etcd's key history every
// Config.CompactEvery, if that is not zero.
func (s *Store) Lead(ctx context.Context, id string) (context.Context, func(forewarn.Tx) error, error) {
	session, err := s.session(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("lead: %w", err)
	}
	election := concurrency.NewElection(session, s.leaderPrefix())
	// WithRequireLeader: a member cut off from its cluster ends the
	// campaign's watch, rather than leave it waiting for good.
	if err := election.Campaign(clientv3.WithRequireLeader(ctx), id); err != nil {
		s.closeSession(session)
		return nil, nil, fmt.Errorf("lead: campaign in %s: %w", s.where, noSpace(err))
	}
	leading, cancel := context.WithCancel(ctx)
	if s.compactEvery > 0 {
		go s.compactWhileLeading(leading)
	}
	go func() {
		select {
		case <-leading.Done():
		case <-session.Done():
			s.logger.Warn("leader lease lost", "replica", id)
		}
		cancel()
		s.closeSession(session)
	}()
	return leading, fence(election.Key(), id), nil
}

// session opens a session that keeps a new lease of LeaderTTL seconds
// alive. The grant gives up after that long (the session's own grant would
// wait for good): a call to a member that went away must not hang a
// campaign or an announcement.
func (s *Store) session(ctx context.Context) (*concurrency.Session, error) {
	gctx, cancel := context.WithTimeout(ctx, LeaderTTL*time.Second)
	defer cancel()
	grant, err := s.client.Grant(gctx, LeaderTTL)
	if err != nil {
		return nil, fmt.Errorf("grant lease in %s: %w", s.where, noSpace(err))
	}
	session, err := concurrency.NewSession(s.client, concurrency.WithLease(grant.ID), concurrency.WithTTL(LeaderTTL))
	if err != nil {
		s.revoke(grant.ID)
		return nil, fmt.Errorf("open session in %s: %w", s.where, err)
	}
	return session, nil
}

// leaderPrefix is the prefix of the election's keys.
func (s *Store) leaderPrefix() string { return s.keys.prefix + "/leader" }

// fence returns the check that the leader's key is still there with the
// leader's id, through the raw reads of an Update's tx.
func fence(key, id string) func(forewarn.Tx) error {
	return func(t forewarn.Tx) error {
		etx, ok := t.(*tx)
		var kv *optimistic
		if ok {
			kv, ok = etx.kv.(*optimistic)
		}
		if !ok {
			return fmt.Errorf("leader fence: not an Update of the etcd store (%T)", t)
		}
		if err := etx.readable(); err != nil {
			return fmt.Errorf("leader fence: %w", err)
		}
		value, found, err := kv.pin(key)
		if err != nil {
			return fmt.Errorf("leader fence: %w", err)
		}
		if !found || value != id {
			return forewarn.Errorf(forewarn.ErrConflict, "replica %s no longer leads", id)
		}
		return nil
	}
}

// closeSession gives up a session's lease, logging a failure: the lease
// then expires by itself.
func (s *Store) closeSession(session *concurrency.Session) {
	if err := session.Close(); err != nil && s.client.Ctx().Err() == nil {
		s.logger.Warn("give up lease; it expires by itself", "err", err)
	}
}

// revoke gives up a lease no session keeps, logging a failure: the lease
// then expires by itself.
func (s *Store) revoke(lease clientv3.LeaseID) {
	ctx, cancel := context.WithTimeout(s.client.Ctx(), LeaderTTL*time.Second)
	defer cancel()
	if _, err := s.client.Revoke(ctx, lease); err != nil && s.client.Ctx().Err() == nil {
		s.logger.Warn("give up lease; it expires by itself", "err", err)
	}
}
