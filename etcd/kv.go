package etcd

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/forewarn/forewarn"
)

// maxReadOps is how many keys one read request asks for: under etcd's
// default --max-txn-ops (128), which bounds the operations of a request.
const maxReadOps = 100

// kv is what a tx reads and writes through: the snapshot of a View, or the
// buffered writes of an Update over a snapshot. Every value the store
// writes is non-empty, so that "" can mean a missing key.
type kv interface {
	// get returns the values of keys, missing keys left out, reading the
	// keys it has not read yet in as few round trips as it can.
	get(keys ...string) (map[string]string, error)
	// scan calls fn with the keys from from up to end (excluded) and their
	// values, in key order, until fn returns false or an error.
	scan(from, end string, fn func(key, value string) (bool, error)) error
	put(key, value string)
	del(key string)
	// delRange deletes the keys from from up to end (excluded): one
	// operation of the commit however many keys it deletes.
	delRange(from, end string)
	// revision is the revision reads are made at, 0 before the first.
	revision() int64
	// prefetch reads ranges ahead, in as few round trips as it can.
	prefetch(ranges []keyRange) error
}

// read is a value read, with the revision of its last change (0 if the key
// is missing).
type read struct {
	value  string
	modRev int64
}

// snapshot is the kv of a View: reads at the revision of its first read,
// cached, and no writes.
type snapshot struct {
	client *clientv3.Client
	ctx    context.Context
	rev    int64
	cache  map[string]read
	// ranges are the keys of whole directories read before (prefetch, or
	// kept by scan), by prefix, for scan and for reads of their keys.
	ranges map[string][]*mvccpb.KeyValue
	// warm, if set, is what the store's last commits left known (an
	// Update's); the first read reads guardKey, and if it shows the
	// commit warm knows, base is that commit's revision and reads look in
	// warm first.
	warm     *warm
	guardKey string
	base     int64
	// maxOps, if set, is the store's (see Store.maxOps): it bounds the
	// reads of a request, and read lowers it.
	maxOps *atomic.Int64
}

func (s *snapshot) get(keys ...string) (map[string]string, error) {
	if err := s.fetch(keys); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(keys))
	for _, k := range keys {
		if v := s.cache[k].value; v != "" {
			out[k] = v
		}
	}
	return out, nil
}

// fetch reads the keys not cached yet, at most maxReadOps per request, all
// at the snapshot's revision.
func (s *snapshot) fetch(keys []string) error {
	if err := s.begin(); err != nil {
		return err
	}
	var fresh []string
	for _, k := range keys {
		if _, ok := s.cache[k]; ok {
			continue
		}
		if r, ok := s.known(k); ok {
			s.cache[k] = r
			continue
		}
		fresh = append(fresh, k)
	}
	return s.fetchFresh(fresh)
}

// begin reads the guard key first if the snapshot has warm, to learn
// whether warm knows the state it reads.
func (s *snapshot) begin() error {
	if s.cache == nil {
		s.cache = make(map[string]read)
	}
	if s.warm == nil || s.rev != 0 {
		return nil
	}
	if err := s.fetchFresh([]string{s.guardKey}); err != nil {
		return err
	}
	s.base = s.warm.base(s.cache[s.guardKey])
	return nil
}

// fetchFresh reads keys from etcd (after begin), at most maxReadOps per
// request, all at the snapshot's revision.
func (s *snapshot) fetchFresh(fresh []string) error {
	for chunk := range slices.Chunk(fresh, s.chunk()) {
		resp, err := s.read(len(chunk), func(i int) clientv3.Op { return clientv3.OpGet(chunk[i], s.opts()...) })
		if err != nil {
			return err
		}
		for i, r := range resp.Responses {
			got := read{}
			if kvs := r.GetResponseRange().Kvs; len(kvs) > 0 {
				got = read{string(kvs[0].Value), kvs[0].ModRevision}
			}
			s.cache[chunk[i]] = got
		}
	}
	return nil
}

// scan reads the range a page at a time, every page at the snapshot's
// revision, or from what a read of the whole range before (prefetch, or a
// scan of at most keptScan keys) kept of it.
func (s *snapshot) scan(from, end string, fn func(key, value string) (bool, error)) error {
	whole := keyRange{from, end}
	if err := s.begin(); err != nil {
		return err
	}
	if kvs, ok := s.kept(whole); ok {
		for _, kv := range kvs {
			if more, err := fn(string(kv.Key), string(kv.Value)); err != nil || !more {
				return err
			}
		}
		return nil
	}
	var kept []*mvccpb.KeyValue
	keeping := true // until the range has more than keptScan keys
	for {
		resp, err := s.read(1, func(int) clientv3.Op {
			return clientv3.OpGet(from, append([]clientv3.OpOption{clientv3.WithRange(end), clientv3.WithLimit(scanPage)}, s.opts()...)...)
		})
		if err != nil {
			return err
		}
		page := resp.Responses[0].GetResponseRange()
		for _, kv := range page.Kvs {
			if more, err := fn(string(kv.Key), string(kv.Value)); err != nil || !more {
				return err
			}
		}
		if keeping {
			if kept = append(kept, page.Kvs...); len(kept) > keptScan {
				kept, keeping = nil, false
			}
		}
		if !page.More || len(page.Kvs) == 0 {
			if keeping {
				s.keep(whole, kept)
			}
			return nil
		}
		from = string(page.Kvs[len(page.Kvs)-1].Key) + "\x00"
	}
}

// keptScan is the most keys of a range that scan keeps for the next scans
// of it in the transaction and, through warm, in the next transactions (a
// campaign's progress, the index of the events in flight); a larger one
// (every VM of a large fleet) is read again.
const keptScan = 20 * scanPage

// known returns a key's value if a whole prefix read before holds it, or
// warm knows it.
func (s *snapshot) known(key string) (read, bool) {
	for prefix := range dirsOf(key) {
		if kvs, ok := s.ranges[prefix]; ok {
			return find(kvs, key), true
		}
	}
	return s.warm.lookup(s.base, key)
}

// dirsOf yields the prefixes of a key that end with a slash: the ranges
// kept (keep) that may hold it.
func dirsOf(key string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := range len(key) {
			if key[i] == '/' && !yield(key[:i+1]) {
				return
			}
		}
	}
}

// find returns a key's value in the keys of a whole range.
func find(kvs []*mvccpb.KeyValue, key string) read {
	i, found := slices.BinarySearchFunc(kvs, key, compareKey)
	if !found {
		return read{}
	}
	return read{string(kvs[i].Value), kvs[i].ModRevision}
}

func compareKey(kv *mvccpb.KeyValue, key string) int { return strings.Compare(string(kv.Key), key) }

// kept returns the keys of a whole range read before, or known to warm.
func (s *snapshot) kept(r keyRange) ([]*mvccpb.KeyValue, bool) {
	if !r.isDir() {
		return nil, false
	}
	if kvs, ok := s.ranges[r.from]; ok {
		return kvs, true
	}
	kvs, ok := s.warm.lookupRange(s.base, r)
	if ok {
		s.keep(r, kvs)
	}
	return kvs, ok
}

// keep keeps the keys of a whole range for scan, if it is the keys of a
// directory: a prefix that ends with a slash (every prefix the records
// scan).
func (s *snapshot) keep(r keyRange, kvs []*mvccpb.KeyValue) {
	if !r.isDir() {
		return
	}
	if s.ranges == nil {
		s.ranges = map[string][]*mvccpb.KeyValue{}
	}
	s.ranges[r.from] = kvs
}

// scanPage is how many keys one range read returns.
const scanPage = 500

// prefetch reads ranges ahead, maxReadOps a request, so that scan finds
// them without a round trip each. A range of more than scanPage keys is
// left for scan to read page by page.
func (s *snapshot) prefetch(ranges []keyRange) error {
	if err := s.begin(); err != nil {
		return err
	}
	ranges = slices.DeleteFunc(slices.Clone(ranges), func(r keyRange) bool {
		_, ok := s.kept(r)
		return ok
	})
	for chunk := range slices.Chunk(ranges, s.chunk()) {
		resp, err := s.read(len(chunk), func(i int) clientv3.Op {
			r := chunk[i]
			return clientv3.OpGet(r.from, append([]clientv3.OpOption{clientv3.WithRange(r.end), clientv3.WithLimit(scanPage)}, s.opts()...)...)
		})
		if err != nil {
			return err
		}
		for i, r := range resp.Responses {
			if page := r.GetResponseRange(); !page.More {
				s.keep(chunk[i], page.Kvs)
			}
		}
	}
	return nil
}

// read runs a request of n reads, op(i) each, again after an error that
// only says etcd was electing a leader, up to readAttempts times in all,
// and in two halves if etcd finds it has too many (a --max-txn-ops under
// maxReadOps), which then lowers the store's maxOps. The reads are built
// as each request is sent, so that the second half reads at the revision
// the first pinned. Reads can be repeated; a commit cannot, as it may
// have been applied.
func (s *snapshot) read(n int, op func(i int) clientv3.Op) (*clientv3.TxnResponse, error) {
	for attempt := 1; ; attempt++ {
		ops := make([]clientv3.Op, n)
		for i := range ops {
			ops[i] = op(i)
		}
		resp, err := s.client.Txn(s.ctx).Then(ops...).Commit()
		if errors.Is(err, rpctypes.ErrTooManyOps) && n > 1 {
			if s.maxOps != nil && int64(n) <= s.maxOps.Load() {
				lowerTo(s.maxOps, int64(n/2))
			}
			return s.readHalves(n, op)
		}
		if err == nil {
			if s.rev == 0 { // the first read pins the snapshot's revision
				s.rev = resp.Header.Revision
			}
			return resp, nil
		}
		if !electing(err) || attempt == readAttempts || s.ctx.Err() != nil {
			return nil, fmt.Errorf("read etcd: %w (%w)", err, forewarn.ErrUnavailable)
		}
		select {
		case <-s.ctx.Done():
		case <-time.After(time.Duration(attempt) * readBackoff):
		}
	}
}

// readHalves reads n reads in two requests, at one revision, and returns
// their responses as one.
func (s *snapshot) readHalves(n int, op func(i int) clientv3.Op) (*clientv3.TxnResponse, error) {
	half := n / 2
	first, err := s.read(half, op)
	if err != nil {
		return nil, err
	}
	second, err := s.read(n-half, func(i int) clientv3.Op { return op(half + i) })
	if err != nil {
		return nil, err
	}
	first.Responses = append(first.Responses, second.Responses...)
	return first, nil
}

// chunk is how many reads one request makes: maxReadOps, or fewer if
// etcd takes fewer operations in one (maxOps).
func (s *snapshot) chunk() int {
	if s.maxOps == nil {
		return maxReadOps
	}
	return max(1, min(maxReadOps, int(s.maxOps.Load())))
}

// readAttempts and readBackoff say how often and after how long a read
// is tried again while etcd elects a leader (which takes 1-3 s).
const (
	readAttempts = 5
	readBackoff  = 250 * time.Millisecond
)

// electing reports whether err says etcd had no leader, or changed it,
// while it answered.
func electing(err error) bool {
	for _, e := range []error{rpctypes.ErrLeaderChanged, rpctypes.ErrNoLeader,
		rpctypes.ErrTimeoutDueToLeaderFail, rpctypes.ErrTimeout} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func (s *snapshot) revision() int64 { return s.rev }

// opts pins reads after the first to its revision.
func (s *snapshot) opts() []clientv3.OpOption {
	if s.rev == 0 {
		return nil
	}
	return []clientv3.OpOption{clientv3.WithRev(s.rev)}
}

func (s *snapshot) put(string, string)      { panic("etcd: write through a snapshot") }
func (s *snapshot) del(string)              { panic("etcd: write through a snapshot") }
func (s *snapshot) delRange(string, string) { panic("etcd: write through a snapshot") }

// optimistic is the kv of an Update: it reads through a snapshot (its own
// writes first) and keeps its writes until commit. Every Update writes the
// guard key, so commit can tell with one comparison whether another Update
// committed since the snapshot: etcd bounds the comparisons of a request
// (--max-txn-ops), so comparing every key read would fail on a large
// fleet.
type optimistic struct {
	snapshot
	writes map[string]string // "" deletes
	order  []string          // keys in the order first written
	pinned []string          // keys commit must find as they were read
	// erased are the ranges delRange deleted, less the keys written since:
	// etcd refuses a transaction that puts a key in a range it deletes.
	erased []keyRange
}

// keyRange is the keys from from up to end (excluded).
type keyRange struct{ from, end string }

func (r keyRange) has(key string) bool { return key >= r.from && key < r.end }

// isDir reports whether the range is the keys that begin with its from,
// which ends with a slash.
func (r keyRange) isDir() bool {
	return strings.HasSuffix(r.from, "/") && r.end == clientv3.GetPrefixRangeEnd(r.from)
}

// newOptimistic returns an optimistic kv that reads from w what it knows
// (w may be nil), makes at most maxOps operations a request (nil: no
// bound but maxReadOps), and writes guardKey at commit.
func newOptimistic(client *clientv3.Client, ctx context.Context, w *warm, guardKey string, maxOps *atomic.Int64) *optimistic {
	return &optimistic{snapshot: snapshot{client: client, ctx: ctx, warm: w, guardKey: guardKey, maxOps: maxOps},
		writes: make(map[string]string)}
}

func (o *optimistic) get(keys ...string) (map[string]string, error) {
	var unwritten []string
	for _, k := range keys {
		if _, ok := o.writes[k]; !ok {
			unwritten = append(unwritten, k)
		}
	}
	out, err := o.snapshot.get(unwritten...)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if v, ok := o.writes[k]; ok && v != "" {
			out[k] = v
		} else if !ok && o.isErased(k) {
			delete(out, k)
		}
	}
	return out, nil
}

// isErased reports whether delRange deleted the key.
func (o *optimistic) isErased(key string) bool {
	return slices.ContainsFunc(o.erased, func(r keyRange) bool { return r.has(key) })
}

// scan merges the transaction's own writes in the range into the
// snapshot's keys: a written key shows its new value, a deleted one is left
// out.
func (o *optimistic) scan(from, end string, fn func(key, value string) (bool, error)) error {
	var written []string
	for k := range o.writes {
		if k >= from && k < end {
			written = append(written, k)
		}
	}
	slices.Sort(written)
	stopped := false
	// emit passes the written keys before key (all if key is ""), then
	// reports whether the scan goes on.
	emit := func(key string) (bool, error) {
		for len(written) > 0 && (key == "" || written[0] < key) {
			k := written[0]
			written = written[1:]
			if v := o.writes[k]; v != "" {
				if more, err := fn(k, v); err != nil || !more {
					stopped = true
					return false, err
				}
			}
		}
		return true, nil
	}
	err := o.snapshot.scan(from, end, func(key, value string) (bool, error) {
		if more, err := emit(key); err != nil || !more {
			return false, err
		}
		if v, ok := o.writes[key]; ok {
			written = written[1:] // key itself, the first written key left
			if v == "" {
				return true, nil
			}
			value = v
		} else if o.isErased(key) {
			return true, nil
		}
		more, err := fn(key, value)
		stopped = !more
		return more, err
	})
	if err != nil || stopped {
		return err
	}
	_, err = emit("")
	return err
}

func (o *optimistic) put(key, value string) { o.write(key, value) }
func (o *optimistic) del(key string)        { o.write(key, "") }

// write buffers a put, or a delete if value is "". A key in an erased
// range is cut out of it: the range's delete then leaves the key to this
// write.
func (o *optimistic) write(key, value string) {
	if _, ok := o.writes[key]; !ok {
		o.order = append(o.order, key)
	}
	o.writes[key] = value
	for i := 0; i < len(o.erased); i++ {
		if r := o.erased[i]; r.has(key) {
			o.erased = slices.Replace(o.erased, i, i+1, keyRange{r.from, key}, keyRange{key + "\x00", r.end})
			i++
		}
	}
}

// delRange buffers the delete of a range; the keys written in it before are
// dropped from the commit, since the range's delete covers them. Ranges
// that overlap are merged into one.
func (o *optimistic) delRange(from, end string) {
	if from >= end {
		return
	}
	r := keyRange{from, end}
	for k := range o.writes {
		if r.has(k) {
			delete(o.writes, k)
		}
	}
	o.order = slices.DeleteFunc(o.order, r.has)
	o.erased = slices.DeleteFunc(o.erased, func(e keyRange) bool {
		if e.from > r.end || r.from > e.end {
			return false
		}
		r = keyRange{min(e.from, r.from), max(e.end, r.end)}
		return true
	})
	o.erased = append(o.erased, r)
}

// pin reads key and makes commit fail if it changes (or goes) before then:
// for keys outside the guard's reach, such as the leader's.
func (o *optimistic) pin(key string) (string, bool, error) {
	if err := o.begin(); err != nil {
		return "", false, err
	}
	if err := o.fetchFresh([]string{key}); err != nil { // never from warm
		return "", false, err
	}
	o.pinned = append(o.pinned, key)
	v := o.cache[key].value
	return v, v != "", nil
}

// commit writes everything at once if no other Update committed since the
// snapshot and the pinned keys are unchanged; ok is false if one did.
// A commit etcd refuses as too large, though within maxOps, lowers maxOps
// to half its size: etcd does not say its bound, and a bound found by
// lowering it one refused commit at a time would cost a refused commit
// each. (A commit larger than maxOps says nothing new of etcd's bound.)
func (o *optimistic) commit(writer string) (ok bool, err error) {
	guard := o.guardKey
	if err := o.fetch([]string{guard}); err != nil { // pins a revision if nothing was read
		return false, err
	}
	cmps := []clientv3.Cmp{clientv3.Compare(clientv3.ModRevision(guard), "=", o.cache[guard].modRev)}
	for _, k := range o.pinned {
		cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(k), "=", o.cache[k].modRev))
	}
	ops := make([]clientv3.Op, 0, len(o.erased)+len(o.order)+1)
	for _, r := range o.erased {
		if r.from < r.end {
			ops = append(ops, clientv3.OpDelete(r.from, clientv3.WithRange(r.end)))
		}
	}
	for _, k := range o.order {
		if v := o.writes[k]; v != "" {
			ops = append(ops, clientv3.OpPut(k, v))
		} else {
			ops = append(ops, clientv3.OpDelete(k))
		}
	}
	guardValue := writer + " " + strconv.FormatInt(o.rev, 10)
	ops = append(ops, clientv3.OpPut(guard, guardValue))
	resp, err := o.client.Txn(o.ctx).If(cmps...).Then(ops...).Commit()
	if errors.Is(err, rpctypes.ErrTooManyOps) {
		if o.maxOps != nil && int64(len(ops)) <= o.maxOps.Load() {
			// etcd refused what the bound let through: its own is lower.
			lowerTo(o.maxOps, int64(len(ops)/2))
		}
		return false, fmt.Errorf("commit to etcd (%d writes, more than its --max-txn-ops): %w (%w)",
			len(ops), err, forewarn.ErrTooLarge)
	}
	if errors.Is(err, rpctypes.ErrNoSpace) {
		return false, fmt.Errorf("commit to etcd (%d writes): %w", len(ops), noSpace(err))
	}
	if err != nil {
		return false, fmt.Errorf("commit to etcd (%d writes): %w (%w)", len(ops), err, forewarn.ErrUnavailable)
	}
	if resp.Succeeded && o.warm != nil {
		o.warm.committed(o, resp.Header.Revision, guard, guardValue)
	}
	return resp.Succeeded, nil
}

// lowerTo lowers v to n if it is above.
func lowerTo(v *atomic.Int64, n int64) {
	for {
		old := v.Load()
		if old <= n || v.CompareAndSwap(old, n) {
			return
		}
	}
}
