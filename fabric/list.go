package fabric

import (
	"cmp"
	"encoding/base64"
	"strings"
	"time"

	"github.com/forewarn/forewarn"
)

// page collects one page of a listing: the items that matched, up to
// limit (0 for no limit), and whether one more matched after them, which
// is when there is a next page. Reading one more than the page, rather
// than stopping at limit, spares the caller an empty last page.
type page[T any] struct {
	limit int
	items []T
	more  bool
}

// add takes an item that matched. It returns false once the page is full
// and this item is the one more: the listing can stop there.
func (p *page[T]) add(item T) bool {
	if p.limit > 0 && len(p.items) == p.limit {
		p.more = true
		return false
	}
	p.items = append(p.items, item)
	return true
}

// next returns the cursor of the page's last item, or "" if the page is
// the last.
func (p *page[T]) next(cursor func(T) string) string {
	if !p.more {
		return ""
	}
	return cursor(p.items[len(p.items)-1])
}

// checkScopeExists refuses a filter on a scope that does not exist, so
// that a misspelt scope is an error, not an empty list.
func checkScopeExists(tx forewarn.Tx, scope string) error {
	if scope == "" {
		return nil
	}
	_, err := tx.Scope(scope)
	return err
}

// checkVMCursor refuses an After that is no VM name: a VM page's cursor is
// its last VM's name.
func checkVMCursor(after string) error {
	if after != "" && !forewarn.ValidName(after) {
		return forewarn.Errorf(forewarn.ErrInvalid,
			"invalid after %q: want the next cursor of the previous page of VMs, a VM name", after)
	}
	return nil
}

// vmCursor is the cursor of a page of VMs that ends with vm.
func vmCursor(vm *forewarn.VM) string { return vm.Name }

// eventCursor is the position of an event in the order of the listing:
// its creation time, then its id. Unlike an index, it stays valid when the
// event it was taken from finishes. The zero cursor is before every event.
type eventCursor struct {
	createdAt time.Time
	id        string
}

// cursorOf returns the cursor of a page of events that ends with e, as it
// goes on the wire: its creation time and id, base64url-encoded, so that a
// client treats it as opaque and it needs no escaping in a URL.
func cursorOf(e *forewarn.Event) string { return stampCursor(e.CreatedAt, e.ID) }

// stampCursor encodes a time and an id as a cursor.
func stampCursor(at time.Time, id string) string {
	raw := at.UTC().Format(time.RFC3339Nano) + " " + id
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// parseEventCursor reads the After of an EventQuery; "" is the zero cursor.
func parseEventCursor(after string) (eventCursor, error) {
	if after == "" {
		return eventCursor{}, nil
	}
	bad := forewarn.Errorf(forewarn.ErrInvalid,
		"invalid after %q: want the next cursor of the previous page of events, as it was returned", after)
	raw, err := base64.RawURLEncoding.DecodeString(after)
	if err != nil {
		return eventCursor{}, bad
	}
	stamp, id, ok := strings.Cut(string(raw), " ")
	if !ok || id == "" {
		return eventCursor{}, bad
	}
	at, err := time.Parse(time.RFC3339Nano, stamp)
	if y := at.UTC().Year(); err != nil || y < 1 || y > 9999 {
		// Out of range in UTC, as in 9999-12-31T23:00:00-02:00: not a
		// cursor that cursorOf could have written.
		return eventCursor{}, bad
	}
	return eventCursor{createdAt: at, id: id}, nil
}

// before reports whether the cursor comes before e, which the page that
// resumes at the cursor then lists.
func (c eventCursor) before(e *forewarn.Event) bool {
	if c.id == "" {
		return true
	}
	return cmp.Or(e.CreatedAt.Compare(c.createdAt), cmp.Compare(e.ID, c.id)) > 0
}
