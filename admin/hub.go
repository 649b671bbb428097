package admin

import (
	"cmp"
	"encoding/json"
	"slices"
	"sync"

	"github.com/forewarn/forewarn"
)

// Hub keeps the newest state of every scope and campaign for the live
// stream (GET /v1/stream). The control plane publishes to it, as it does to
// the metadata endpoint; each stream sends what changed since it last
// looked, so a slow client delays no one and a burst of changes to a scope
// reaches it as one message. A Hub is a forewarn.CampaignPublisher.
type Hub struct {
	mu        sync.Mutex
	seq       uint64
	scopes    map[string]*hubItem // by the scope's forewarn.Key; a removed scope leaves a tombstone
	campaigns map[string]*hubItem // by ID
	changed   chan struct{}       // closed at the next change
	// tombstones are the keys of removed scopes, oldest first. Beyond
	// maxTombstones the oldest go, and floor is the newest seq gone: a
	// stream behind it may have missed a removal and starts over.
	tombstones []string
	floor      uint64
}

// maxTombstones bounds what the hub keeps of removed scopes, so that
// standalone VMs coming and going (each is its own scope) do not grow it
// for good. A stream is at most a batch behind, so it rarely starts over.
const maxTombstones = 1000

// hubItem is one message of the stream: a scope, a scope's removal or a
// campaign, as of change seq. It is encoded once, by the first stream that
// sends it.
type hubItem struct {
	seq   uint64
	event string // the stream's event name
	v     any

	once sync.Once
	data []byte
	err  error
}

// NewHub returns an empty Hub.
func NewHub() *Hub {
	return &Hub{
		scopes:    map[string]*hubItem{},
		campaigns: map[string]*hubItem{},
		changed:   make(chan struct{}),
	}
}

// streamScope is the data of a scope message.
type streamScope struct {
	Scope  *forewarn.Scope   `json:"scope"`
	VMs    []*forewarn.VM    `json:"vms"`
	Events []*forewarn.Event `json:"events"`
}

// PublishScope notes the new state of a scope.
func (h *Hub) PublishScope(snap *forewarn.ScopeSnapshot) {
	h.put(h.scopes, string(forewarn.KeyOf(snap.Scope.Name)), "scope",
		streamScope{snap.Scope, nonNil(snap.VMs), nonNil(snap.Events)})
}

// RemoveScope notes that a scope is gone.
func (h *Hub) RemoveScope(name string) {
	key := string(forewarn.KeyOf(name))
	h.put(h.scopes, key, "scope-removed", map[string]string{"name": name})
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tombstones = append(h.tombstones, key)
	for len(h.tombstones) > maxTombstones {
		old := h.tombstones[0]
		h.tombstones = h.tombstones[1:]
		if it := h.scopes[old]; it != nil && it.event == "scope-removed" {
			h.floor = max(h.floor, it.seq)
			delete(h.scopes, old)
		}
	}
}

// PublishChaos does nothing: the dashboard does not show chaos rules.
func (h *Hub) PublishChaos([]*forewarn.ChaosRule) {}

// maxEndedCampaigns is how many ended campaigns the hub keeps for new
// streams, the newest: every campaign is kept for good in the store, and
// one over 10,000 scopes is about a megabyte of progress, which the page of
// an operator who signs in later does not need.
const maxEndedCampaigns = 50

// PublishCampaign notes the new state of a campaign.
func (h *Hub) PublishCampaign(c *forewarn.Campaign) {
	h.put(h.campaigns, c.ID, "campaign", c)
	if !c.Ended() {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var ended []*forewarn.Campaign
	for _, it := range h.campaigns {
		if e := it.v.(*forewarn.Campaign); e.Ended() {
			ended = append(ended, e)
		}
	}
	if len(ended) <= maxEndedCampaigns {
		return
	}
	slices.SortFunc(ended, func(a, b *forewarn.Campaign) int { return b.EndedAt.Compare(a.EndedAt) })
	for _, e := range ended[maxEndedCampaigns:] {
		delete(h.campaigns, e.ID)
	}
}

func (h *Hub) put(items map[string]*hubItem, key, event string, v any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	items[key] = &hubItem{seq: h.seq, event: event, v: v}
	close(h.changed)
	h.changed = make(chan struct{})
}

// since returns the items changed after seq, oldest change first, the
// newest seq, and a channel closed at the next change. From seq 0 it
// returns the whole state, without tombstones. current is false, and the
// items nil, for a seq from before the oldest tombstone dropped: the caller
// must start over from 0.
func (h *Hub) since(seq uint64) (items []*hubItem, newest uint64, changed <-chan struct{}, current bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if seq > 0 && seq < h.floor {
		return nil, h.seq, h.changed, false
	}
	for _, m := range []map[string]*hubItem{h.scopes, h.campaigns} {
		for _, it := range m {
			if it.seq > seq && (seq > 0 || it.event != "scope-removed") {
				items = append(items, it)
			}
		}
	}
	slices.SortFunc(items, func(a, b *hubItem) int { return cmp.Compare(a.seq, b.seq) })
	return items, h.seq, h.changed, true
}

// encode returns the item's data as JSON.
func (it *hubItem) encode() ([]byte, error) {
	it.once.Do(func() { it.data, it.err = json.Marshal(it.v) })
	return it.data, it.err
}
