package bolt

import (
	"bytes"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/forewarn/forewarn/internal/records"
)

// buckets maps each kind of record, and each index, to its bucket.
var buckets = map[records.Kind][]byte{
	records.Scopes:         scopesBucket,
	records.VMs:            vmsBucket,
	records.Events:         eventsBucket,
	records.Campaigns:      campaignsBucket,
	records.CampaignPlans:  campaignPlansBucket,
	records.CampaignScopes: campaignScopesBucket,
	records.VMsByScope:     vmsByScopeBucket,
	records.EventsByScope:  eventsByScopeBucket,
	records.VMsByAddress:   vmsByAddressBucket,
}

var _ records.Raw = (*tx)(nil)

// kindBucket returns the bucket of a kind of record.
func (t *tx) kindBucket(k records.Kind) (*bbolt.Bucket, error) {
	name, ok := buckets[k]
	if !ok {
		return nil, fmt.Errorf("no bucket for %ss", k)
	}
	return t.bucket(name)
}

// RawGet reads a record; bbolt's bytes stay valid until the tx ends.
func (t *tx) RawGet(k records.Kind, key string) ([]byte, bool, error) {
	b, err := t.kindBucket(k)
	if err != nil {
		return nil, false, err
	}
	data := b.Get([]byte(key))
	return data, data != nil, nil
}

// RawGetMany reads records one by one: bbolt reads memory.
func (t *tx) RawGetMany(k records.Kind, keys []string) ([][]byte, error) {
	b, err := t.kindBucket(k)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(keys))
	for i, key := range keys {
		out[i] = b.Get([]byte(key))
	}
	return out, nil
}

// RawScan walks the records of a kind whose keys begin with prefix, after
// the key after, with a cursor.
func (t *tx) RawScan(k records.Kind, prefix, after string,
	fn func(key string, data []byte) (bool, error)) error {
	b, err := t.kindBucket(k)
	if err != nil {
		return err
	}
	c := b.Cursor()
	key, data := c.Seek([]byte(max(prefix, after)))
	if after != "" && string(key) == after {
		key, data = c.Next()
	}
	for ; key != nil && bytes.HasPrefix(key, []byte(prefix)); key, data = c.Next() {
		if more, err := fn(string(key), data); err != nil || !more {
			return err
		}
	}
	return nil
}

// RawPut writes a record.
func (t *tx) RawPut(k records.Kind, key string, data []byte) error {
	b, err := t.kindBucket(k)
	if err != nil {
		return err
	}
	return b.Put([]byte(key), data)
}

// RawDelete deletes a record, if there is one.
func (t *tx) RawDelete(k records.Kind, key string) (bool, error) {
	b, err := t.kindBucket(k)
	if err != nil || b.Get([]byte(key)) == nil {
		return false, err
	}
	return true, b.Delete([]byte(key))
}
