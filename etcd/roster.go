package etcd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/forewarn/forewarn"
)

var _ forewarn.Roster = (*Store)(nil)

// joinRetry is how long Join waits before announcing again.
const joinRetry = 2 * time.Second

// errIDTaken is what joinOnce returns while another lease holds the key.
var errIDTaken = errors.New("another live replica holds this id")

// Join announces r under the prefix on a lease of LeaderTTL seconds until
// ctx ends. While another replica's lease holds r.ID (or a dead one's that
// has not expired yet), it logs that and tries again.
func (s *Store) Join(ctx context.Context, r forewarn.Replica) error {
	value, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("join as replica %s: %w", r.ID, err)
	}
	for {
		err := s.joinOnce(ctx, s.replicaKey(r.ID), string(value))
		if ctx.Err() != nil {
			return nil
		}
		s.logger.Warn("announce replica, trying again", "replica", r.ID, "in", joinRetry, "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(joinRetry):
		}
	}
}

// joinOnce puts the replica's key on a new lease, unless another lease holds
// it, and keeps the lease alive until ctx ends or the lease is lost. A key
// that holds this very announcement (the same replica, process and start:
// its own, on a lease an etcd restart left behind) is taken over.
func (s *Store) joinOnce(ctx context.Context, key, value string) error {
	session, err := s.session(ctx)
	if err != nil {
		return err
	}
	defer s.closeSession(session)
	put := clientv3.OpPut(key, value, clientv3.WithLease(session.Lease()))
	resp, err := s.client.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(put).
		Commit()
	if err == nil && !resp.Succeeded {
		resp, err = s.client.Txn(ctx).
			If(clientv3.Compare(clientv3.Value(key), "=", value)).
			Then(put).
			Commit()
	}
	switch {
	case err != nil:
		return fmt.Errorf("put %s: %w", key, noSpace(err))
	case !resp.Succeeded:
		return errIDTaken
	}
	select {
	case <-ctx.Done():
		return nil
	case <-session.Done():
		return fmt.Errorf("lease of %s lost", key)
	}
}

// Replicas returns the replicas announced and the leader, read at one
// revision.
func (s *Store) Replicas(ctx context.Context) ([]forewarn.Replica, string, error) {
	resp, err := s.client.Txn(ctx).Then(
		clientv3.OpGet(s.replicaKey(""), clientv3.WithPrefix()),
		clientv3.OpGet(s.leaderPrefix()+"/", clientv3.WithFirstCreate()...),
	).Commit()
	if err != nil {
		return nil, "", fmt.Errorf("list replicas in %s: %w", s.where, err)
	}
	var leader string
	if kvs := resp.Responses[1].GetResponseRange().Kvs; len(kvs) > 0 {
		leader = string(kvs[0].Value)
	}
	var replicas []forewarn.Replica
	for _, kv := range resp.Responses[0].GetResponseRange().Kvs {
		var r forewarn.Replica
		if err := json.Unmarshal(kv.Value, &r); err != nil {
			return nil, "", fmt.Errorf("replica record %s: %w", kv.Key, err)
		}
		r.Leader = leader != "" && r.ID == leader
		replicas = append(replicas, r)
	}
	slices.SortFunc(replicas, func(a, b forewarn.Replica) int { return strings.Compare(a.ID, b.ID) })
	return replicas, leader, nil
}

// replicaKey is the key of the replica named id.
func (s *Store) replicaKey(id string) string { return s.keys.prefix + "/replicas/" + id }
