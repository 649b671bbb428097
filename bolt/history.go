package bolt

import (
	"encoding/binary"
	"fmt"

	"github.com/segmentio/encoding/json"

	"github.com/forewarn/forewarn"
)

// AppendHistory adds a finished event under the next sequence number, then
// deletes the entries older than the newest keep. keep must be at least 1.
//
// Entries are only appended at the end and dropped from the front, so their
// numbers are contiguous and the ones to drop are those at or below
// seq-keep.
func (t *tx) AppendHistory(e *forewarn.Event, keep int) error {
	if e == nil {
		return forewarn.Errorf(forewarn.ErrInvalid, "history event is nil")
	}
	if keep < 1 {
		return forewarn.Errorf(forewarn.ErrInvalid, "history must keep at least 1 event, not %d", keep)
	}
	b, err := t.bucket(historyBucket)
	if err != nil {
		return fmt.Errorf("append history: %w", err)
	}
	seq, err := b.NextSequence()
	if err != nil {
		return fmt.Errorf("append history: %w", err)
	}
	data, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode history event %q: %w", e.ID, err)
	}
	if err := b.Put(seqKey(seq), data); err != nil {
		return fmt.Errorf("append history event %q: %w", e.ID, err)
	}
	return t.trimHistory(seq, uint64(keep))
}

// trimHistory deletes the entries numbered at or below last-keep.
func (t *tx) trimHistory(last, keep uint64) error {
	if last <= keep {
		return nil
	}
	b, err := t.bucket(historyBucket)
	if err != nil {
		return fmt.Errorf("trim history: %w", err)
	}
	// Collect first: deleting under a moving cursor can skip keys.
	var old [][]byte
	c := b.Cursor()
	for k, _ := c.First(); k != nil && binary.BigEndian.Uint64(k) <= last-keep; k, _ = c.Next() {
		old = append(old, append([]byte(nil), k...))
	}
	for _, k := range old {
		if err := b.Delete(k); err != nil {
			return fmt.Errorf("trim history: %w", err)
		}
	}
	return nil
}

// History returns up to limit finished events, newest first; all of them if
// limit is 0 or less.
func (t *tx) History(limit int) ([]*forewarn.Event, error) {
	b, err := t.bucket(historyBucket)
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	var out []*forewarn.Event
	c := b.Cursor()
	for k, data := c.Last(); k != nil && (limit <= 0 || len(out) < limit); k, data = c.Prev() {
		e := new(forewarn.Event)
		if err := json.Unmarshal(data, e); err != nil {
			return nil, fmt.Errorf("decode history entry %d: %w", binary.BigEndian.Uint64(k), err)
		}
		out = append(out, e)
	}
	return out, nil
}

// seqKey is the key of history entry seq: big-endian, so that keys sort in
// the order of their numbers.
func seqKey(seq uint64) []byte {
	return binary.BigEndian.AppendUint64(nil, seq)
}
