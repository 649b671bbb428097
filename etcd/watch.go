package etcd

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/records"
)

var _ forewarn.Watcher = (*Store)(nil)

// rewatchAfter is the pause before watching again after the watch failed.
const rewatchAfter = time.Second

// Watch follows the keys of the store and sends, once per batch of changes
// etcd reports, the names of the scopes whose record, VMs or events changed,
// by this store or any other writer. It follows from the revision current
// when it is called, so a read made after Watch returns misses nothing. If
// etcd compacted away revisions the watch had not seen, it sends every
// scope. The channel closes when ctx ends or the store closes.
func (s *Store) Watch(ctx context.Context) <-chan []string {
	out := make(chan []string)
	next := int64(0) // 0: from now
	if resp, err := s.client.Get(ctx, s.keys.meta(schemaKey)); err != nil {
		s.logger.Warn("watch: read current revision, watching from now", "err", err)
	} else {
		next = resp.Header.Revision + 1
	}
	go s.watch(ctx, next, out)
	return out
}

// watch runs the watch from revision next, again after failures, until ctx
// ends or the client closes.
func (s *Store) watch(ctx context.Context, next int64, out chan<- []string) {
	defer close(out)
	for ctx.Err() == nil && s.client.Ctx().Err() == nil {
		opts := []clientv3.OpOption{clientv3.WithPrefix(), clientv3.WithPrevKV()}
		if next > 0 {
			opts = append(opts, clientv3.WithRev(next))
		}
		for resp := range s.client.Watch(ctx, s.keys.prefix+"/", opts...) {
			if resp.CompactRevision != 0 {
				s.logger.Warn("watch: revisions compacted, refreshing every scope", "from", next, "compacted", resp.CompactRevision)
				next = resp.CompactRevision
				if !s.sendAll(ctx, out) {
					return
				}
				break
			}
			if err := resp.Err(); err != nil {
				s.logger.Warn("watch failed, watching again", "err", err)
				break
			}
			next = resp.Header.Revision + 1
			if scopes := s.scopesOf(resp.Events); len(scopes) > 0 && !send(ctx, out, scopes) {
				return
			}
		}
		select {
		case <-ctx.Done():
		case <-s.client.Ctx().Done():
		case <-time.After(rewatchAfter):
		}
	}
}

// sendAll sends the names of every scope; false if ctx ended.
func (s *Store) sendAll(ctx context.Context, out chan<- []string) bool {
	var names []string
	err := s.View(ctx, func(tx forewarn.Tx) error {
		scopes, err := tx.Scopes()
		for _, sc := range scopes {
			names = append(names, sc.Name)
		}
		return err
	})
	if err != nil {
		s.logger.Warn("watch: list scopes", "err", err)
	}
	return len(names) == 0 || send(ctx, out, names)
}

// send sends names unless ctx ends first.
func send(ctx context.Context, out chan<- []string, names []string) bool {
	select {
	case out <- names:
		return true
	case <-ctx.Done():
		return false
	}
}

// scopesOf returns the scopes the changes concern, each once, in the order
// first seen: the scope of a scope record, and the scope of a VM or an
// event before and after the change (a VM may move).
func (s *Store) scopesOf(events []*clientv3.Event) []string {
	seen := map[string]bool{}
	var names []string
	add := func(name string) {
		if name != "" && !seen[lower(name)] {
			seen[lower(name)] = true
			names = append(names, name)
		}
	}
	for _, ev := range events {
		dir, _, ok := strings.Cut(strings.TrimPrefix(string(ev.Kv.Key), s.keys.prefix+"/"), "/")
		if !ok {
			continue
		}
		if ev.Type == clientv3.EventTypePut {
			add(scopeOf(dir, ev.Kv.Value))
		}
		if ev.PrevKv != nil {
			add(scopeOf(dir, ev.PrevKv.Value))
		}
		if dir == dirs[records.Scopes] && ev.Type == clientv3.EventTypeDelete && ev.PrevKv == nil {
			add(strings.TrimPrefix(string(ev.Kv.Key), s.keys.prefix+"/"+dir+"/")) // lowercased, but names match in any case
		}
	}
	return names
}

// scopeOf returns the scope a record of the directory dir belongs to, or ""
// if it is not a scope, VM or event, or cannot be read.
func scopeOf(dir string, value []byte) string {
	var rec struct {
		Name  string `json:"name"`
		Scope string `json:"scope"`
	}
	switch dir {
	case dirs[records.Scopes], dirs[records.VMs], dirs[records.Events]:
	default:
		return ""
	}
	if err := json.Unmarshal(value, &rec); err != nil {
		return ""
	}
	if dir == dirs[records.Scopes] {
		return rec.Name
	}
	return rec.Scope
}
