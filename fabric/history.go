package fabric

import (
	"cmp"
	"context"

	"github.com/forewarn/forewarn"
)

// HistoryPage lists a page of the history, newest first, beginning after
// the event q.After stands for. The store reads the history from its
// newest end only, so a page after the first reads the history up to it
// (at most Config.HistoryKeep events).
func (f *Fabric) HistoryPage(ctx context.Context, q forewarn.HistoryQuery) ([]*forewarn.Event, string, error) {
	if err := q.Check(); err != nil {
		return nil, "", err
	}
	after, err := parseEventCursor(q.After)
	if err != nil {
		return nil, "", err
	}
	read := 0 // everything
	if q.After == "" && q.Limit > 0 {
		read = q.Limit + 1 // the page and one more, which says there is a next
	}
	var events []*forewarn.Event
	err = f.view(ctx, func(tx forewarn.Tx) error {
		var err error
		events, err = tx.History(read)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	p := page[*forewarn.Event]{limit: q.Limit}
	for _, e := range events[resumeHistory(events, after):] {
		if !p.add(e) {
			break
		}
	}
	return p.items, p.next(historyCursor), nil
}

// historyCursor is the cursor of a page of the history that ends with e:
// when it ended, and its id.
func historyCursor(e *forewarn.Event) string { return stampCursor(e.EndedAt, e.ID) }

// resumeHistory returns the index in events, newest first, at which the
// page after the cursor begins: after the cursor's event, or if that has
// been dropped from the history since, at the first event that ended
// before it.
func resumeHistory(events []*forewarn.Event, c eventCursor) int {
	if c.id == "" {
		return 0
	}
	for i, e := range events {
		if e.ID == c.id {
			return i + 1
		}
	}
	for i, e := range events {
		if cmp.Or(e.EndedAt.Compare(c.createdAt), cmp.Compare(e.ID, c.id)) < 0 {
			return i
		}
	}
	return len(events)
}

// History lists up to limit finished and cancelled events, newest first.
func (f *Fabric) History(ctx context.Context, limit int) ([]*forewarn.Event, error) {
	var events []*forewarn.Event
	err := f.view(ctx, func(tx forewarn.Tx) error {
		var err error
		events, err = tx.History(limit)
		return err
	})
	return events, err
}
