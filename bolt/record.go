package bolt

import (
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/forewarn/forewarn/internal/records"
)

// buckets maps each kind of record to its bucket.
var buckets = map[records.Kind][]byte{
	records.Scopes:    scopesBucket,
	records.VMs:       vmsBucket,
	records.Events:    eventsBucket,
	records.Campaigns: campaignsBucket,
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

// RawList reads every record of a kind, in key order.
func (t *tx) RawList(k records.Kind) ([][]byte, error) {
	b, err := t.kindBucket(k)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	err = b.ForEach(func(_, data []byte) error {
		out = append(out, data)
		return nil
	})
	return out, err
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
