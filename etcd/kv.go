package etcd

import (
	"context"
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// errAborted is what a tx returns once a read of its Update failed; the
// Update then returns the etcd error itself.
var errAborted = errors.New("etcd transaction aborted by a failed read")

// kv is what a tx reads and writes through: the STM of an Update or the
// snapshot of a View. Every value the store writes is non-empty, so that
// "" can mean a missing key.
type kv interface {
	// get returns the values of keys, missing keys left out, reading the
	// keys it has not read yet in one round trip.
	get(keys ...string) (map[string]string, error)
	put(key, value string)
	del(key string)
}

// stmKV is the kv of an Update, over the STM of one attempt.
type stmKV struct {
	stm   concurrency.STM
	known map[string]bool // keys read or written in this attempt
	abort any             // the panic of a failed STM read
}

func newSTMKV(stm concurrency.STM) *stmKV {
	return &stmKV{stm: stm, known: make(map[string]bool)}
}

// get reads keys through the STM, fetching the ones it does not know yet in
// one request. The STM reports a failed read by panicking, which get turns
// into errAborted; rethrow hands the panic back to the STM afterwards.
func (s *stmKV) get(keys ...string) (out map[string]string, err error) {
	if s.abort != nil {
		return nil, errAborted
	}
	defer func() {
		if r := recover(); r != nil {
			s.abort, out, err = r, nil, errAborted
		}
	}()
	var fresh []string
	for _, k := range keys {
		if !s.known[k] {
			fresh = append(fresh, k)
		}
	}
	if len(fresh) > 1 {
		s.stm.Get(fresh...) // one round trip; later Gets hit the read set
	}
	out = make(map[string]string, len(keys))
	for _, k := range keys {
		s.known[k] = true
		if v := s.stm.Get(k); v != "" {
			out[k] = v
		}
	}
	return out, nil
}

func (s *stmKV) put(key, value string) {
	s.known[key] = true
	s.stm.Put(key, value)
}

func (s *stmKV) del(key string) {
	s.known[key] = true
	s.stm.Del(key)
}

// rethrow re-raises the panic of a failed read, so that the STM stops and
// returns its error.
func (s *stmKV) rethrow() {
	if s.abort != nil {
		panic(s.abort)
	}
}

// snapshot is the kv of a View: reads at the revision of its first read,
// cached, and no writes.
type snapshot struct {
	client *clientv3.Client
	ctx    context.Context
	rev    int64
	cache  map[string]string // values read, "" for a missing key
}

func (s *snapshot) get(keys ...string) (map[string]string, error) {
	if s.cache == nil {
		s.cache = make(map[string]string)
	}
	var ops []clientv3.Op
	var fresh []string
	for _, k := range keys {
		if _, ok := s.cache[k]; !ok {
			fresh = append(fresh, k)
			ops = append(ops, clientv3.OpGet(k, s.opts()...))
		}
	}
	if len(ops) > 0 {
		resp, err := s.client.Txn(s.ctx).Then(ops...).Commit()
		if err != nil {
			return nil, fmt.Errorf("read etcd: %w", err)
		}
		if s.rev == 0 {
			s.rev = resp.Header.Revision
		}
		for i, r := range resp.Responses {
			s.cache[fresh[i]] = ""
			if kvs := r.GetResponseRange().Kvs; len(kvs) > 0 {
				s.cache[fresh[i]] = string(kvs[0].Value)
			}
		}
	}
	out := make(map[string]string, len(keys))
	for _, k := range keys {
		if v := s.cache[k]; v != "" {
			out[k] = v
		}
	}
	return out, nil
}

// opts pins reads after the first to its revision.
func (s *snapshot) opts() []clientv3.OpOption {
	if s.rev == 0 {
		return nil
	}
	return []clientv3.OpOption{clientv3.WithRev(s.rev)}
}

func (s *snapshot) put(string, string) { panic("etcd: write through a snapshot") }
func (s *snapshot) del(string)         { panic("etcd: write through a snapshot") }
