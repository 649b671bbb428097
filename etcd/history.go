package etcd

import (
	"fmt"
	"strconv"
)

// The history's entries are the keys of historyDir, by number, zero-padded
// so that they sort in its order; historySeq holds the number of the last
// (records.RawHistory). What an append drops is one range, deleted in one
// operation: the write costs the event, not the history.

// RawLastHistory reads the number of the last entry, 0 if there is none.
func (t *tx) RawLastHistory() (uint64, error) {
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

// RawPutHistory writes entry seq and the number of the last.
func (t *tx) RawPutHistory(seq uint64, data []byte) error {
	if err := t.canWrite(); err != nil {
		return err
	}
	t.kv.put(t.keys.historySeq(), strconv.FormatUint(seq, 10))
	t.kv.put(t.keys.history(seq), string(data))
	return nil
}

// RawTrimHistory deletes the entries numbered through and below, in one
// range delete.
func (t *tx) RawTrimHistory(through uint64) error {
	if err := t.canWrite(); err != nil {
		return err
	}
	t.kv.delRange(t.keys.historyDir(), t.keys.history(through+1))
	return nil
}

// RawScanHistory reads the entries from from to to as one range.
func (t *tx) RawScanHistory(from, to uint64, fn func(seq uint64, data []byte) error) error {
	if err := t.readable(); err != nil {
		return err
	}
	dir := t.keys.historyDir()
	return t.kv.scan(t.keys.history(from), t.keys.history(to+1), func(key, data string) (bool, error) {
		seq, err := strconv.ParseUint(key[len(dir):], 10, 64)
		if err != nil {
			return false, fmt.Errorf("history key %q is not valid: %w", key, err)
		}
		err = fn(seq, []byte(data))
		return err == nil, err
	})
}
