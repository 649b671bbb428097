package etcd

import (
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/forewarn/forewarn/internal/records"
)

// dirs maps each kind of record, and each index, to the directory of its
// keys.
var dirs = map[records.Kind]string{
	records.Scopes:         "scopes",
	records.VMs:            "vms",
	records.Events:         "events",
	records.Campaigns:      "campaigns",
	records.CampaignPlans:  "campaign-plans",
	records.CampaignScopes: "campaign-scopes",
	records.VMsByScope:     "vms-by-scope",
	records.EventsByScope:  "events-by-scope",
	records.VMsByAddress:   "vms-by-address",
}

var _ records.Raw = (*tx)(nil)

// RawGet reads a record.
func (t *tx) RawGet(k records.Kind, key string) ([]byte, bool, error) {
	data, ok, err := t.get1(t.keys.record(dirs[k], key))
	return []byte(data), ok, err
}

// RawGetMany reads records, a hundred keys per request.
func (t *tx) RawGetMany(k records.Kind, names []string) ([][]byte, error) {
	if err := t.readable(); err != nil {
		return nil, err
	}
	recordKeys := make([]string, len(names))
	for i, name := range names {
		recordKeys[i] = t.keys.record(dirs[k], name)
	}
	vals, err := t.kv.get(recordKeys...)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(names))
	for i, key := range recordKeys {
		if data, ok := vals[key]; ok {
			out[i] = []byte(data)
		}
	}
	return out, nil
}

// RawScan reads the keys of a kind that begin with prefix, after the key
// after, with range reads at the transaction's revision. The transaction's
// conflict check covers them: every Update writes the guard key.
func (t *tx) RawScan(k records.Kind, prefix, after string,
	fn func(key string, data []byte) (bool, error)) error {
	if err := t.readable(); err != nil {
		return err
	}
	dir := t.keys.dir(k)
	from := dir + prefix
	if after != "" {
		from = max(from, dir+after+"\x00")
	}
	return t.kv.scan(from, clientv3.GetPrefixRangeEnd(dir+prefix), func(key, value string) (bool, error) {
		return fn(strings.TrimPrefix(key, dir), []byte(value))
	})
}

// RawPrefetch reads ahead the keys of a kind that begin with each prefix,
// a hundred ranges a request, so that RawScan of them costs no round trip.
func (t *tx) RawPrefetch(k records.Kind, prefixes []string) error {
	if err := t.readable(); err != nil {
		return err
	}
	dir := t.keys.dir(k)
	ranges := make([]keyRange, len(prefixes))
	for i, p := range prefixes {
		ranges[i] = keyRange{dir + p, clientv3.GetPrefixRangeEnd(dir + p)}
	}
	return t.kv.prefetch(ranges)
}

// RawPut writes a record.
func (t *tx) RawPut(k records.Kind, key string, data []byte) error {
	if err := t.canWrite(); err != nil {
		return err
	}
	t.kv.put(t.keys.record(dirs[k], key), string(data))
	return nil
}

// RawDelete deletes a record, if there is one.
func (t *tx) RawDelete(k records.Kind, key string) (bool, error) {
	if err := t.canWrite(); err != nil {
		return false, err
	}
	recordKey := t.keys.record(dirs[k], key)
	_, exists, err := t.get1(recordKey)
	if err != nil || !exists {
		return false, err
	}
	t.kv.del(recordKey)
	return true, nil
}

// dir begins the keys of a kind of record, or of an index.
func (k keys) dir(kind records.Kind) string { return k.prefix + "/" + dirs[kind] + "/" }
