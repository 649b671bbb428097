package etcd

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/segmentio/encoding/json"

	"github.com/forewarn/forewarn"
)

// AppendHistory adds a finished event under the next sequence number, then
// deletes the entries older than the newest keep. keep must be at least 1.
//
// Entries are only appended at the end and dropped from the front, and
// their keys sort in the order of their numbers, so that what to drop is
// one range, deleted in one operation: the write costs the event, not the
// history.
func (t *tx) AppendHistory(e *forewarn.Event, keep int) error {
	if e == nil {
		return forewarn.Errorf(forewarn.ErrInvalid, "history event is nil")
	}
	if keep < 1 {
		return forewarn.Errorf(forewarn.ErrInvalid, "history must keep at least 1 event, not %d", keep)
	}
	if err := t.canWrite(); err != nil {
		return fmt.Errorf("append history: %w", err)
	}
	data, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode history event %q: %w", e.ID, err)
	}
	seq, err := t.lastHistorySeq()
	if err != nil {
		return fmt.Errorf("append history event %q: %w", e.ID, err)
	}
	seq++
	t.kv.put(t.keys.historySeq(), strconv.FormatUint(seq, 10))
	t.kv.put(t.keys.history(seq), string(data))
	if seq > uint64(keep) {
		t.kv.delRange(t.keys.historyDir(), t.keys.history(seq-uint64(keep)+1))
	}
	return nil
}

// lastHistorySeq reads the last history sequence number, 0 if there is none.
func (t *tx) lastHistorySeq() (uint64, error) {
	raw, ok, err := t.get1(t.keys.historySeq())
	if err != nil || !ok {
		return 0, err
	}
	last, err := strconv.ParseUint(raw, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("history sequence %q is not valid: %w", raw, err)
	}
	return last, nil
}

// History returns up to limit finished events, newest first; all of them if
// limit is 0 or less. It reads the range of the newest limit numbers.
func (t *tx) History(limit int) ([]*forewarn.Event, error) {
	if err := t.readable(); err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	last, err := t.lastHistorySeq()
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	from := t.keys.historyDir()
	if limit > 0 && last > uint64(limit) {
		from = t.keys.history(last - uint64(limit) + 1)
	}
	var out []*forewarn.Event
	err = t.kv.scan(from, t.keys.history(last+1), func(key, data string) (bool, error) {
		e := new(forewarn.Event)
		if err := json.Unmarshal([]byte(data), e); err != nil {
			return false, fmt.Errorf("decode history entry %s: %w", key[len(t.keys.historyDir()):], err)
		}
		out = append(out, e)
		return true, nil
	})
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	slices.Reverse(out)
	return out, nil
}
