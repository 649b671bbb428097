package records

import (
	"fmt"
	"slices"

	"github.com/segmentio/encoding/json"

	"github.com/forewarn/forewarn"
)

// RawHistory is what a store does with its history: the JSON of finished
// events, numbered from 1 in the order they were appended. Entries are only
// appended at the end and dropped from the front, so the numbers of those
// kept are contiguous, up to the last.
type RawHistory interface {
	// RawLastHistory returns the number of the last entry appended, 0 if
	// there was none.
	RawLastHistory() (uint64, error)
	// RawPutHistory writes entry seq, the one after the last.
	RawPutHistory(seq uint64, data []byte) error
	// RawTrimHistory deletes the entries numbered through and below.
	RawTrimHistory(through uint64) error
	// RawScanHistory calls fn with the entries kept of those numbered
	// from from to to (1 <= from <= to), in order, until fn returns an
	// error, which it returns. data is valid only during the call.
	RawScanHistory(from, to uint64, fn func(seq uint64, data []byte) error) error
}

// AppendHistory adds a finished event under the next number, then deletes
// the entries older than the newest keep: those numbered at or below the
// new one less keep. keep must be at least 1.
func (t Tx) AppendHistory(e *forewarn.Event, keep int) error {
	if e == nil {
		return forewarn.Errorf(forewarn.ErrInvalid, "history event is nil")
	}
	if keep < 1 {
		return forewarn.Errorf(forewarn.ErrInvalid, "history must keep at least 1 event, not %d", keep)
	}
	data, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode history event %q: %w", e.ID, err)
	}
	last, err := t.Raw.RawLastHistory()
	if err != nil {
		return fmt.Errorf("append history event %q: %w", e.ID, err)
	}
	seq := last + 1
	if err := t.Raw.RawPutHistory(seq, data); err != nil {
		return fmt.Errorf("append history event %q: %w", e.ID, err)
	}
	if seq <= uint64(keep) {
		return nil
	}
	if err := t.Raw.RawTrimHistory(seq - uint64(keep)); err != nil {
		return fmt.Errorf("trim history: %w", err)
	}
	return nil
}

// History returns up to limit finished events, newest first; all of them if
// limit is 0 or less. It reads the entries of the newest limit numbers.
func (t Tx) History(limit int) ([]*forewarn.Event, error) {
	last, err := t.Raw.RawLastHistory()
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	if last == 0 {
		return nil, nil
	}
	from := uint64(1)
	if limit > 0 && last > uint64(limit) {
		from = last - uint64(limit) + 1
	}
	var out []*forewarn.Event
	err = t.Raw.RawScanHistory(from, last, func(seq uint64, data []byte) error {
		e := new(forewarn.Event)
		if err := json.Unmarshal(data, e); err != nil {
			return fmt.Errorf("decode history entry %d: %w", seq, err)
		}
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read history: %w", err)
	}
	slices.Reverse(out)
	return out, nil
}
