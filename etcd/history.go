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
	seq, err := t.nextHistorySeq()
	if err != nil {
		return fmt.Errorf("append history event %q: %w", e.ID, err)
	}
	seqs, err := readIndex[uint64](t, historyDir)
	if err != nil {
		return fmt.Errorf("append history event %q: %w", e.ID, err)
	}
	t.kv.put(t.keys.history(seq), string(data))
	seqs = append(seqs, seq)
	if drop := len(seqs) - keep; drop > 0 {
		for _, old := range seqs[:drop] {
			t.kv.del(t.keys.history(old))
		}
		seqs = slices.Delete(seqs, 0, drop)
	}
	return writeIndex(t, historyDir, seqs)
}

// historyDir names the index of the history.
const historyDir = "history"

// nextHistorySeq reads the last history sequence number and writes the
// next, which it returns.
func (t *tx) nextHistorySeq() (uint64, error) {
	raw, ok, err := t.get1(t.keys.historySeq())
	if err != nil {
		return 0, err
	}
	var last uint64
	if ok {
		if last, err = strconv.ParseUint(raw, 10, 64); err != nil {
			return 0, fmt.Errorf("history sequence %q is not valid: %w", raw, err)
		}
	}
	t.kv.put(t.keys.historySeq(), strconv.FormatUint(last+1, 10))
	return last + 1, nil
}

// History returns up to limit finished events, newest first; all of them if
// limit is 0 or less.
func (t *tx) History(limit int) ([]*forewarn.Event, error) {
	seqs, err := readIndex[uint64](t, historyDir)
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	if limit > 0 && limit < len(seqs) {
		seqs = seqs[len(seqs)-limit:]
	}
	slices.Reverse(seqs)
	entryKeys := make([]string, len(seqs))
	for i, seq := range seqs {
		entryKeys[i] = t.keys.history(seq)
	}
	vals, err := t.kv.get(entryKeys...)
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	out := make([]*forewarn.Event, 0, len(seqs))
	for i, key := range entryKeys {
		data, ok := vals[key]
		if !ok {
			return nil, fmt.Errorf("read history: index lists entry %d but it is missing", seqs[i])
		}
		e := new(forewarn.Event)
		if err := json.Unmarshal([]byte(data), e); err != nil {
			return nil, fmt.Errorf("decode history entry %d: %w", seqs[i], err)
		}
		out = append(out, e)
	}
	return out, nil
}
