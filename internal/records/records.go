// Package records is the typed layer the stores share: scopes, VMs, events
// and campaigns as JSON records under case-insensitive names, with the
// indexes that find a scope's VMs and events and a VM's addresses, and the
// history of finished events, over the raw reads and writes each store
// implements in its own way; and the check of a store's schema version at
// open (CheckSchema).
package records

import (
	"fmt"
	"slices"

	"github.com/segmentio/encoding/json"

	"github.com/forewarn/forewarn"
)

// Kind is a kind of record, named as messages name it.
type Kind string

// The kinds of record.
const (
	Scopes    Kind = "scope"
	VMs       Kind = "VM"
	Events    Kind = "event"
	Campaigns Kind = "campaign"
	// CampaignPlans and CampaignScopes are a campaign's plan and its
	// progress in each scope that moved (see PutCampaign).
	CampaignPlans  Kind = "campaign plan"
	CampaignScopes Kind = "campaign scope"
)

// The indexes. An entry's key is "<group>/<member>" and its value the
// member's key: the VMs of a scope, the events of a scope, the VMs that
// have an address. Names and addresses have no '/', so a group's entries
// are the keys with its prefix.
const (
	VMsByScope    Kind = "VM of scope"
	EventsByScope Kind = "event of scope"
	VMsByAddress  Kind = "VM at address"
)

// Kinds are the kinds of record, and Indexes the indexes, as a store lays
// out its buckets or directories.
var (
	Kinds   = []Kind{Scopes, VMs, Events, Campaigns, CampaignPlans, CampaignScopes}
	Indexes = []Kind{VMsByScope, EventsByScope, VMsByAddress}
)

// Raw is what a store does with the JSON of records and index entries,
// keyed by lowercased names, and of its history (RawHistory).
type Raw interface {
	RawHistory

	// RawGet returns the record, or found false.
	RawGet(k Kind, key string) (data []byte, found bool, err error)
	// RawGetMany returns the records of the keys, nil for a missing one,
	// in as few round trips as the store can.
	RawGetMany(k Kind, keys []string) ([][]byte, error)
	// RawScan calls fn with the records of a kind whose keys begin with
	// prefix, in key order, beginning after the key after ("" for the
	// first), until fn returns false or an error, which RawScan returns.
	// data is valid only during the call.
	RawScan(k Kind, prefix, after string, fn func(key string, data []byte) (bool, error)) error
	// RawPut writes a record, replacing the one of the same key.
	RawPut(k Kind, key string, data []byte) error
	// RawDelete deletes a record, or returns found false.
	RawDelete(k Kind, key string) (found bool, err error)
}

// Tx implements the record methods of forewarn.Tx over Raw. Make one
// with NewTx for each transaction.
type Tx struct {
	Raw Raw
	// progress is the progress of each campaign as the transaction read
	// or last wrote it, by key, so that PutCampaign compares a campaign's
	// scopes with it rather than encode every one and read them again:
	// an advance of a campaign over thousands of scopes moves a few dozen.
	progress map[string][]forewarn.ScopeProgress
}

// NewTx returns a Tx over raw for one transaction.
func NewTx(raw Raw) Tx { return Tx{Raw: raw, progress: map[string][]forewarn.ScopeProgress{}} }

// key is the key of a record named name: its forewarn.Key.
func key(name string) string { return string(forewarn.KeyOf(name)) }

// entry is the key of an index entry.
func entry(group, member string) string { return key(group) + "/" + key(member) }

func notFound(k Kind, name string) error {
	return forewarn.Errorf(forewarn.ErrNotFound, "%s %q not found", k, name)
}

// get reads the record named name. Decoding gives the caller its own copy.
func get[T any](t Tx, k Kind, name string) (*T, error) {
	data, found, err := t.Raw.RawGet(k, key(name))
	if err != nil {
		return nil, fmt.Errorf("get %s %q: %w", k, name, err)
	}
	if !found {
		return nil, notFound(k, name)
	}
	return decode[T](k, name, data)
}

func decode[T any](k Kind, name string, data []byte) (*T, error) {
	v := new(T)
	if err := json.Unmarshal(data, v); err != nil {
		return nil, fmt.Errorf("decode %s %q: %w", k, name, err)
	}
	return v, nil
}

// scan calls fn with the records of a kind, in key order, after the key
// after, until fn returns false.
func scan[T any](t Tx, k Kind, after string, fn func(*T) bool) error {
	err := t.Raw.RawScan(k, "", key(after), func(key string, data []byte) (bool, error) {
		v, err := decode[T](k, key, data)
		if err != nil {
			return false, err
		}
		return fn(v), nil
	})
	if err != nil {
		return fmt.Errorf("list %ss: %w", k, err)
	}
	return nil
}

// scanIndex calls fn with the records of kind k that index ix lists under
// group, in member order, after the member after, until fn returns false.
// It reads the members a batch at a time, each batch in one RawGetMany.
func scanIndex[T any](t Tx, ix, k Kind, group, after string, fn func(*T) bool) error {
	prefix := key(group) + "/"
	from := ""
	if after != "" {
		from = prefix + key(after)
	}
	for {
		var members []string
		err := t.Raw.RawScan(ix, prefix, from, func(key string, member []byte) (bool, error) {
			members, from = append(members, string(member)), key
			return len(members) < scanBatch, nil
		})
		if err != nil {
			return fmt.Errorf("list %ss of %q: %w", k, group, err)
		}
		if len(members) == 0 {
			return nil
		}
		found, err := t.Raw.RawGetMany(k, members)
		if err != nil {
			return fmt.Errorf("list %ss of %q: %w", k, group, err)
		}
		for i, data := range found {
			if data == nil {
				return fmt.Errorf("the index of %q lists %s %q, which is missing", group, k, members[i])
			}
			v, err := decode[T](k, members[i], data)
			if err != nil {
				return err
			}
			if !fn(v) {
				return nil
			}
		}
		if len(members) < scanBatch {
			return nil
		}
	}
}

// scanBatch is how many members of an index scanIndex reads at once.
const scanBatch = 100

// all collects what a scan passes.
func all[T any](scan func(fn func(*T) bool) error) ([]*T, error) {
	var out []*T
	err := scan(func(v *T) bool {
		out = append(out, v)
		return true
	})
	return out, err
}

// put writes v as the record named name, replacing one of the same name in
// any case.
func put(t Tx, k Kind, name string, v any) error {
	if name == "" {
		return forewarn.Errorf(forewarn.ErrInvalid, "%s has no name", k)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s %q: %w", k, name, err)
	}
	if err := t.Raw.RawPut(k, key(name), data); err != nil {
		return fmt.Errorf("put %s %q: %w", k, name, err)
	}
	return nil
}

// del deletes the record named name; ErrNotFound if there is none.
func del(t Tx, k Kind, name string) error {
	found, err := t.Raw.RawDelete(k, key(name))
	if err != nil {
		return fmt.Errorf("delete %s %q: %w", k, name, err)
	}
	if !found {
		return notFound(k, name)
	}
	return nil
}

// indexed is what the indexes know of a VM or event: its scope and, for a
// VM, its addresses.
type indexed struct {
	Scope     string   `json:"scope"`
	Addresses []string `json:"addresses"`
}

// reindex replaces the index entries of a record's old version (nil if it
// is new) with those of its new one (nil if it is deleted).
func reindex(t Tx, byScope Kind, member string, old, new *indexed) error {
	oldEntries := entriesOf(byScope, member, old)
	newEntries := entriesOf(byScope, member, new)
	for _, e := range oldEntries {
		if slices.Contains(newEntries, e) {
			continue
		}
		if _, err := t.Raw.RawDelete(e.Index, e.Key); err != nil {
			return fmt.Errorf("unindex %s %q: %w", e.Index, member, err)
		}
	}
	for _, e := range newEntries {
		if slices.Contains(oldEntries, e) {
			continue
		}
		if err := t.Raw.RawPut(e.Index, e.Key, []byte(e.Member)); err != nil {
			return fmt.Errorf("index %s %q: %w", e.Index, member, err)
		}
	}
	return nil
}

// entriesOf returns the index entries of a VM or event; none for nil.
func entriesOf(byScope Kind, member string, r *indexed) []Entry {
	if r == nil {
		return nil
	}
	out := []Entry{{byScope, entry(r.Scope, member), key(member)}}
	if byScope == VMsByScope {
		for _, a := range r.Addresses {
			out = append(out, Entry{VMsByAddress, entry(a, member), key(member)})
		}
	}
	return out
}

// stored returns what the indexes know of the stored version of a VM or
// event, or nil if there is none.
func stored(t Tx, k Kind, name string) (*indexed, error) {
	data, found, err := t.Raw.RawGet(k, key(name))
	if err != nil || !found {
		return nil, err
	}
	return decode[indexed](k, name, data)
}

// putIndexed writes a VM or event and its index entries.
func putIndexed(t Tx, k, byScope Kind, name string, v any, now *indexed) error {
	if name == "" {
		return forewarn.Errorf(forewarn.ErrInvalid, "%s has no name", k)
	}
	old, err := stored(t, k, name)
	if err != nil {
		return fmt.Errorf("put %s %q: %w", k, name, err)
	}
	if err := reindex(t, byScope, name, old, now); err != nil {
		return err
	}
	return put(t, k, name, v)
}

// delIndexed deletes a VM or event and its index entries.
func delIndexed(t Tx, k, byScope Kind, name string) error {
	old, err := stored(t, k, name)
	if err != nil {
		return fmt.Errorf("delete %s %q: %w", k, name, err)
	}
	if old == nil {
		return notFound(k, name)
	}
	if err := reindex(t, byScope, name, old, nil); err != nil {
		return err
	}
	return del(t, k, name)
}

// Entry is an index entry: the key Key in index Index, whose value is
// Member.
type Entry struct {
	Index       Kind
	Key, Member string
}

// IndexEntries returns the index entries of a stored VM or event, for a
// store written before there were indexes (other kinds have none).
func IndexEntries(k Kind, name string, data []byte) ([]Entry, error) {
	byScope, ok := map[Kind]Kind{VMs: VMsByScope, Events: EventsByScope}[k]
	if !ok {
		return nil, nil
	}
	r, err := decode[indexed](k, name, data)
	if err != nil {
		return nil, err
	}
	return entriesOf(byScope, name, r), nil
}

// prefetcher is a Raw that can read ranges of keys ahead, many in one round
// trip (etcd); RawScan of a range read ahead costs none.
type prefetcher interface {
	RawPrefetch(k Kind, prefixes []string) error
}

// PrefetchScopes reads ahead the records of the scopes, with their VMs and
// events in flight, in a few round trips for them all, if the store reads
// ahead (etcd); the reads of each that follow then cost none. A store
// that reads locally (bbolt, memory) does nothing.
func (t Tx) PrefetchScopes(scopes []string) error {
	p, ok := t.Raw.(prefetcher)
	if !ok || len(scopes) == 0 {
		return nil
	}
	keys := make([]string, len(scopes))
	groups := make([]string, len(scopes))
	for i, s := range scopes {
		keys[i], groups[i] = key(s), key(s)+"/"
	}
	if _, err := t.Raw.RawGetMany(Scopes, keys); err != nil {
		return fmt.Errorf("read ahead scopes: %w", err)
	}
	for _, ix := range []struct{ index, kind Kind }{{VMsByScope, VMs}, {EventsByScope, Events}} {
		members, err := t.prefetchMembers(p, ix.index, groups)
		if err != nil {
			return fmt.Errorf("read ahead %ss of scopes: %w", ix.kind, err)
		}
		if _, err := t.Raw.RawGetMany(ix.kind, members); err != nil {
			return fmt.Errorf("read ahead %ss of scopes: %w", ix.kind, err)
		}
	}
	return nil
}

// prefetchMembers reads ahead the entries of an index under each group,
// and returns their members.
func (t Tx) prefetchMembers(p prefetcher, ix Kind, groups []string) ([]string, error) {
	if err := p.RawPrefetch(ix, groups); err != nil {
		return nil, err
	}
	var members []string
	for _, g := range groups {
		err := t.Raw.RawScan(ix, g, "", func(_ string, member []byte) (bool, error) {
			members = append(members, string(member))
			return true, nil
		})
		if err != nil {
			return nil, err
		}
	}
	return members, nil
}

// PrefetchVMs reads ahead the VMs with the names, and those that have the
// addresses, in as few round trips as the store can, if it reads ahead:
// for VMs about to be created, whose names and addresses are checked
// free. A store that reads locally does nothing.
func (t Tx) PrefetchVMs(names, addresses []string) error {
	p, ok := t.Raw.(prefetcher)
	if !ok || len(names)+len(addresses) == 0 {
		return nil
	}
	keys := make([]string, 0, len(names))
	for _, n := range names {
		keys = append(keys, key(n))
	}
	groups := make([]string, len(addresses))
	for i, a := range addresses {
		groups[i] = key(a) + "/"
	}
	owners, err := t.prefetchMembers(p, VMsByAddress, groups)
	if err != nil {
		return fmt.Errorf("read ahead the VMs of addresses: %w", err)
	}
	keys = append(keys, owners...)
	if _, err := t.Raw.RawGetMany(VMs, keys); err != nil {
		return fmt.Errorf("read ahead VMs: %w", err)
	}
	return nil
}

// PrefetchEvents reads ahead the events with the ids, in as few round trips
// as the store can (etcd: a hundred keys a request), if it reads ahead: for
// the ids of events about to be created, whose keys are read to find an
// event stored before. A store that reads locally does nothing.
func (t Tx) PrefetchEvents(ids []string) error {
	if _, ok := t.Raw.(prefetcher); !ok || len(ids) == 0 {
		return nil
	}
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = key(id)
	}
	if _, err := t.Raw.RawGetMany(Events, keys); err != nil {
		return fmt.Errorf("read ahead events: %w", err)
	}
	return nil
}
