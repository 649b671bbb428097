package etcd

import (
	"slices"
	"sync"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// warm is what a store's Updates left known after their commits: the keys
// they read and wrote, and the whole ranges they read, with their values
// as of the store's last commit. While the guard key still holds what
// that commit wrote (no other Update committed since), the next Update
// reads them from here rather than from etcd: the leader's scheduler,
// which commits one transaction after another (a campaign over thousands
// of scopes takes hundreds), then reads only what is new to it, not the
// campaign's progress and the index of the events in flight each time.
//
// Keys outside the guard's reach (the leader's, which an Update pins) are
// never kept. A commit whose transaction started from a state warm did not
// know replaces it all.
type warm struct {
	mu sync.Mutex
	// rev is the revision of the last commit, 0 while nothing is known;
	// guard is the value that commit wrote into the guard key.
	rev   int64
	guard string
	keys  map[string]read
	// ranges are the keys of whole directories (keep), by prefix, in key
	// order. A
	// commit that changes one replaces its slice (never changing it in
	// place), so that a transaction may keep reading the slice it was
	// given.
	ranges map[string][]*mvccpb.KeyValue
	size   int // the cost of the keys and the entries of ranges
}

// maxWarm bounds what warm keeps, in bytes of keys and values (with
// entryCost each): a commit that takes it past the bound drops everything
// kept, and the next transactions read again what they need. A campaign
// over 20,000 VMs takes about a third of it.
const maxWarm = 64 << 20

// entryCost is what a key and its value take beyond their bytes.
const entryCost = 64

func cost(key, value string) int { return len(key) + len(value) + entryCost }

func kvCost(kv *mvccpb.KeyValue) int { return len(kv.Key) + len(kv.Value) + entryCost }

// valid reports whether warm knows the state at base, the revision of the
// commit the guard key showed to a transaction (0: not one of this
// store's).
func (w *warm) valid(base int64) bool { return base != 0 && w.rev == base }

// lookup returns what warm knows of a key at base.
func (w *warm) lookup(base int64, key string) (read, bool) {
	if w == nil {
		return read{}, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.valid(base) {
		return read{}, false
	}
	if r, ok := w.keys[key]; ok {
		return r, true
	}
	for prefix := range dirsOf(key) {
		if kvs, ok := w.ranges[prefix]; ok {
			return find(kvs, key), true
		}
	}
	return read{}, false
}

// lookupRange returns what warm knows of a whole range at base.
func (w *warm) lookupRange(base int64, r keyRange) ([]*mvccpb.KeyValue, bool) {
	if w == nil || !r.isDir() {
		return nil, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.valid(base) {
		return nil, false
	}
	kvs, ok := w.ranges[r.from]
	return kvs, ok
}

// base returns the revision of the commit a guard key shows, if warm
// knows the state after it; 0 otherwise.
func (w *warm) base(guard read) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.rev == 0 || guard.modRev != w.rev || guard.value != w.guard {
		return 0
	}
	return w.rev
}

func (w *warm) reset() {
	w.rev, w.guard, w.keys, w.ranges, w.size = 0, "", nil, nil, 0
}

// committed takes in what a transaction that committed at rev knew: what
// it read (at its snapshot, which no other Update changed before the
// commit) and what it wrote. If warm knew the state the transaction
// started from, it adds to that; otherwise it starts again from the
// transaction's knowledge alone.
func (w *warm) committed(o *optimistic, rev int64, guardKey, guard string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.valid(o.base) {
		w.reset()
	}
	if w.keys == nil {
		w.keys, w.ranges = map[string]read{}, map[string][]*mvccpb.KeyValue{}
	}
	for k, r := range o.cache {
		if !slices.Contains(o.pinned, k) {
			w.set(k, r)
		}
	}
	for prefix, kvs := range o.ranges {
		if _, ok := w.ranges[prefix]; !ok {
			w.ranges[prefix] = kvs
			for _, kv := range kvs {
				w.size += kvCost(kv)
			}
		}
	}
	changed := map[string]bool{} // ranges this commit gave a slice of their own
	for _, r := range o.erased {
		w.erase(r, changed)
	}
	for _, k := range o.order {
		w.write(k, o.writes[k], rev, changed)
	}
	w.rev, w.guard = rev, guard
	w.set(guardKey, read{guard, rev})
	if w.size > maxWarm {
		w.keys, w.ranges, w.size = map[string]read{}, map[string][]*mvccpb.KeyValue{}, 0
	}
}

// set notes a key's value.
func (w *warm) set(key string, r read) {
	if old, ok := w.keys[key]; ok {
		w.size -= cost(key, old.value)
	}
	w.keys[key] = r
	w.size += cost(key, r.value)
}

// own returns a range's slice for a commit to change: a copy, the first
// time in the commit.
func (w *warm) own(prefix string, changed map[string]bool) []*mvccpb.KeyValue {
	if !changed[prefix] {
		w.ranges[prefix] = slices.Clone(w.ranges[prefix])
		changed[prefix] = true
	}
	return w.ranges[prefix]
}

// erase applies the delete of a range.
func (w *warm) erase(r keyRange, changed map[string]bool) {
	for k := range w.keys {
		if r.has(k) {
			w.set(k, read{})
		}
	}
	in := func(kv *mvccpb.KeyValue) bool { return r.has(string(kv.Key)) }
	for prefix, kvs := range w.ranges {
		whole := keyRange{prefix, clientv3.GetPrefixRangeEnd(prefix)}
		if whole.from >= r.end || (whole.end != "" && whole.end <= r.from) || !slices.ContainsFunc(kvs, in) {
			continue
		}
		for _, kv := range kvs {
			if in(kv) {
				w.size -= kvCost(kv)
			}
		}
		w.ranges[prefix] = slices.DeleteFunc(w.own(prefix, changed), in)
	}
}

// write applies a put of value at rev, or a delete if value is "", to the
// key if warm knows it, and to the ranges that hold it.
func (w *warm) write(key, value string, rev int64, changed map[string]bool) {
	if _, ok := w.keys[key]; ok {
		w.set(key, read{})
		if value != "" {
			w.set(key, read{value, rev})
		}
	}
	for prefix := range dirsOf(key) {
		kvs, ok := w.ranges[prefix]
		if !ok {
			continue
		}
		i, found := slices.BinarySearchFunc(kvs, key, compareKey)
		if found {
			w.size -= kvCost(kvs[i])
		}
		kv := &mvccpb.KeyValue{Key: []byte(key), Value: []byte(value), ModRevision: rev}
		switch {
		case value == "" && found:
			w.ranges[prefix] = slices.Delete(w.own(prefix, changed), i, i+1)
		case value != "" && found:
			w.own(prefix, changed)[i] = kv
		case value != "":
			w.ranges[prefix] = slices.Insert(w.own(prefix, changed), i, kv)
		}
		if value != "" {
			w.size += kvCost(kv)
		}
	}
}
