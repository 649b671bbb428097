package memstore

// The history is a slice of the entries kept, oldest first, and the number
// of the last (records.RawHistory).

// RawLastHistory returns the number of the last entry.
func (t *tx) RawLastHistory() (uint64, error) {
	if err := t.check(false); err != nil {
		return 0, err
	}
	return t.state.historyLast, nil
}

// RawPutHistory appends entry seq; data is not changed afterwards.
func (t *tx) RawPutHistory(seq uint64, data []byte) error {
	if err := t.check(true); err != nil {
		return err
	}
	t.state.history = append(t.state.ownHistory(), data)
	t.state.historyLast = seq
	return nil
}

// RawTrimHistory drops the entries numbered through and below.
func (t *tx) RawTrimHistory(through uint64) error {
	if err := t.check(true); err != nil {
		return err
	}
	h := t.state.ownHistory()
	kept := min(t.state.historyLast-through, uint64(len(h)))
	t.state.history = h[uint64(len(h))-kept:]
	return nil
}

// RawScanHistory walks the entries from from to to.
func (t *tx) RawScanHistory(from, to uint64, fn func(seq uint64, data []byte) error) error {
	if err := t.check(false); err != nil {
		return err
	}
	h := t.state.history
	first := t.state.historyLast - uint64(len(h)) + 1 // the number of h[0]
	for seq := max(from, first); seq <= min(to, t.state.historyLast); seq++ {
		if err := fn(seq, h[seq-first]); err != nil {
			return err
		}
	}
	return nil
}
