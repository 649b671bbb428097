package bolt

import "encoding/binary"

// The history's entries are the keys of historyBucket, by number; the
// bucket's sequence is the number of the last (records.RawHistory).

// RawLastHistory returns the bucket's sequence: the number of the last entry.
func (t *tx) RawLastHistory() (uint64, error) {
	b, err := t.bucket(historyBucket)
	if err != nil {
		return 0, err
	}
	return b.Sequence(), nil
}

// RawPutHistory writes entry seq and moves the bucket's sequence to it.
func (t *tx) RawPutHistory(seq uint64, data []byte) error {
	b, err := t.bucket(historyBucket)
	if err != nil {
		return err
	}
	if err := b.SetSequence(seq); err != nil {
		return err
	}
	return b.Put(seqKey(seq), data)
}

// RawTrimHistory deletes the entries numbered through and below.
func (t *tx) RawTrimHistory(through uint64) error {
	b, err := t.bucket(historyBucket)
	if err != nil {
		return err
	}
	// Collect first: deleting under a moving cursor can skip keys.
	var old [][]byte
	c := b.Cursor()
	for k, _ := c.First(); k != nil && binary.BigEndian.Uint64(k) <= through; k, _ = c.Next() {
		old = append(old, append([]byte(nil), k...))
	}
	for _, k := range old {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// RawScanHistory walks the entries from from to to with a cursor.
func (t *tx) RawScanHistory(from, to uint64, fn func(seq uint64, data []byte) error) error {
	b, err := t.bucket(historyBucket)
	if err != nil {
		return err
	}
	c := b.Cursor()
	for k, data := c.Seek(seqKey(from)); k != nil && binary.BigEndian.Uint64(k) <= to; k, data = c.Next() {
		if err := fn(binary.BigEndian.Uint64(k), data); err != nil {
			return err
		}
	}
	return nil
}

// seqKey is the key of history entry seq: big-endian, so that keys sort in
// the order of their numbers.
func seqKey(seq uint64) []byte {
	return binary.BigEndian.AppendUint64(nil, seq)
}
