package etcd

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/segmentio/encoding/json"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/records"
)

var _ forewarn.Watcher = (*Store)(nil)

// rewatchAfter is the pause before watching again after the watch failed.
const rewatchAfter = time.Second

// Watch follows the keys of the store and sends, once per batch of changes
// etcd reports, what other writers changed (other replicas' stores; what
// this store's own Updates wrote, their caller knows): the scopes whose
// record, VMs or events changed, the settings, the campaigns. It
// follows from the revision current when it is called, so a read made after
// Watch returns misses nothing. If etcd compacted away revisions the watch
// had not seen, it sends a Change with All set. The channel closes when ctx
// ends or the store closes.
func (s *Store) Watch(ctx context.Context) <-chan forewarn.Change {
	out := make(chan forewarn.Change)
	next := int64(0) // 0: from now
	if resp, err := s.client.Get(ctx, s.keys.meta(schemaKey)); err != nil {
		s.logger.Warn("watch: read current revision, watching from now", "err", err)
	} else {
		next = resp.Header.Revision + 1
	}
	go s.watch(ctx, next, out)
	return out
}

// WatchAfter is Watch from the revision after rev: it sends what changed
// since a read at rev (a transaction's Revision), so that a replica that
// read the whole fleet need not read it again to catch up.
func (s *Store) WatchAfter(ctx context.Context, rev int64) <-chan forewarn.Change {
	out := make(chan forewarn.Change)
	go s.watch(ctx, rev+1, out)
	return out
}

// watch runs the watch from revision next, again after failures, until ctx
// ends or the client closes.
func (s *Store) watch(ctx context.Context, next int64, out chan<- forewarn.Change) {
	defer close(out)
	for ctx.Err() == nil && s.client.Ctx().Err() == nil {
		opts := []clientv3.OpOption{clientv3.WithPrefix(), clientv3.WithPrevKV()}
		if next > 0 {
			opts = append(opts, clientv3.WithRev(next))
		}
		for resp := range s.client.Watch(ctx, s.keys.prefix+"/", opts...) {
			if resp.CompactRevision != 0 {
				s.logger.Warn("watch: revisions compacted, reading everything again", "from", next, "compacted", resp.CompactRevision)
				next = resp.CompactRevision
				if !send(ctx, out, forewarn.Change{All: true}) {
					return
				}
				break
			}
			if err := resp.Err(); err != nil {
				s.logger.Warn("watch failed, watching again", "err", err)
				break
			}
			next = resp.Header.Revision + 1
			if c := s.changeOf(s.others(resp.Events)); !c.empty() && !send(ctx, out, c.Change) {
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

// others returns the events of a watch response that other writers made:
// it leaves out the revisions whose guard key (which every Update writes)
// names this store as its writer.
func (s *Store) others(events []*clientv3.Event) []*clientv3.Event {
	guard := s.keys.updateGuard()
	own := map[int64]bool{}
	for _, ev := range events {
		if string(ev.Kv.Key) == guard && strings.HasPrefix(string(ev.Kv.Value), s.writer+" ") {
			own[ev.Kv.ModRevision] = true
		}
	}
	if len(own) == 0 {
		return events
	}
	out := make([]*clientv3.Event, 0, len(events))
	for _, ev := range events {
		if !own[ev.Kv.ModRevision] {
			out = append(out, ev)
		}
	}
	return out
}

// send sends c unless ctx ends first.
func send(ctx context.Context, out chan<- forewarn.Change, c forewarn.Change) bool {
	select {
	case out <- c:
		return true
	case <-ctx.Done():
		return false
	}
}

// change is a forewarn.Change being gathered.
type change struct {
	forewarn.Change
	seen map[forewarn.Key]bool // the names in Scopes
}

// addScope adds a scope, once.
func (c *change) addScope(name string) {
	if key := forewarn.KeyOf(name); name != "" && !c.seen[key] {
		c.seen[key] = true
		c.Scopes = append(c.Scopes, name)
	}
}

// empty reports whether nothing a Change reports changed.
func (c *change) empty() bool { return len(c.Scopes) == 0 && len(c.Meta) == 0 && !c.Campaigns }

// changeOf returns what the etcd events change, each scope and setting
// once, in the order first seen: the scope of a scope record, the scope of
// a VM or an event before and after the change (a VM may move), the
// settings, and whether a campaign changed.
func (s *Store) changeOf(events []*clientv3.Event) *change {
	c := &change{seen: map[forewarn.Key]bool{}}
	add := c.addScope
	for _, ev := range events {
		dir, rest, ok := strings.Cut(strings.TrimPrefix(string(ev.Kv.Key), s.keys.prefix+"/"), "/")
		if !ok {
			continue
		}
		switch {
		case dir == metaDir && rest != schemaKey && !slices.Contains(c.Meta, rest):
			c.Meta = append(c.Meta, rest)
		case dir == dirs[records.Campaigns] || dir == dirs[records.CampaignPlans] || dir == dirs[records.CampaignScopes]:
			c.Campaigns = true
			if id, _, _ := strings.Cut(rest, "/"); !slices.Contains(c.CampaignIDs, id) {
				c.CampaignIDs = append(c.CampaignIDs, id)
			}
		}
		if ev.Type == clientv3.EventTypePut {
			add(scopeOf(dir, ev.Kv.Value))
		}
		if ev.PrevKv != nil {
			add(scopeOf(dir, ev.PrevKv.Value))
		}
		if dir == dirs[records.Scopes] && ev.Type == clientv3.EventTypeDelete && ev.PrevKv == nil {
			add(rest) // lowercased, but names match in any case
		}
	}
	return c
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
