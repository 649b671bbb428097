package admin

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/forewarn/forewarn"
)

// VMs lists the VMs that q selects, in name order. With q.Limit 0 it
// follows the pages to the last and returns every VM, and next is "";
// with a limit it returns one page and the cursor of the next, "" on the
// last.
func (c *Client) VMs(ctx context.Context, q forewarn.VMQuery) (vms []*forewarn.VM, next string, err error) {
	if err := q.Check(); err != nil {
		return nil, "", err
	}
	return listPages[*forewarn.VM](ctx, c, "/v1/vms", q.After, q.Limit, func(after string, limit int) url.Values {
		q.After, q.Limit = after, limit
		return vmQueryValues(q)
	})
}

// Events lists the events in flight that q selects, oldest first. With
// q.Limit 0 it follows the pages to the last and returns every event; with
// a limit it returns one page and the cursor of the next, "" on the last.
func (c *Client) Events(ctx context.Context, q forewarn.EventQuery) (events []*forewarn.Event, next string, err error) {
	if err := q.Check(); err != nil {
		return nil, "", err
	}
	return listPages[*forewarn.Event](ctx, c, "/v1/events", q.After, q.Limit, func(after string, limit int) url.Values {
		q.After, q.Limit = after, limit
		return eventQueryValues(q)
	})
}

// HistoryPage lists the finished and cancelled events, newest first. With
// q.Limit 0 it follows the pages to the last and returns the whole
// history; with a limit it returns one page and the cursor of the next, ""
// on the last.
func (c *Client) HistoryPage(ctx context.Context, q forewarn.HistoryQuery) (events []*forewarn.Event, next string, err error) {
	if err := q.Check(); err != nil {
		return nil, "", err
	}
	return listPages[*forewarn.Event](ctx, c, "/v1/history", q.After, q.Limit, func(after string, limit int) url.Values {
		q.After, q.Limit = after, limit
		return historyQueryValues(q)
	})
}

// listPages returns one page of a listing if limit is set, and else every
// page from after on, asking c.pageSize items at a time. query returns the
// query string of the page that begins after the cursor.
func listPages[T any](ctx context.Context, c *Client, path, after string, limit int,
	query func(after string, limit int) url.Values) ([]T, string, error) {
	if limit > 0 {
		return listPage[T](ctx, c, path, query(after, limit))
	}
	all := []T{} // an empty listing is empty, not nil, as one page is
	for {
		items, next, err := listPage[T](ctx, c, path, query(after, c.pageSize))
		if err != nil {
			return nil, "", err
		}
		all = append(all, items...)
		if next == "" {
			return all, "", nil
		}
		if next == after {
			return nil, "", fmt.Errorf("admin API at %s: GET %s: the next page begins where the last did (after %q)",
				c.base, path, after)
		}
		after = next
	}
}

// listPage gets one page of a listing and the cursor of the next.
func listPage[T any](ctx context.Context, c *Client, path string, query url.Values) ([]T, string, error) {
	var items []T
	header, err := c.exchange(ctx, http.MethodGet, path, query, nil, &items)
	if err != nil {
		return nil, "", err
	}
	next, err := nextCursor(header)
	if err != nil {
		return nil, "", fmt.Errorf("admin API at %s: GET %s: %w", c.base, path, err)
	}
	return items, next, nil
}

// nextCursor returns the cursor of the next page that the Link header of a
// listing points to (RFC 8288, rel="next"), or "" if there is none. It
// takes only the link's after, and the client keeps its own path and
// filters, so that a proxy that moves the API under a prefix does not lead
// it astray.
func nextCursor(h http.Header) (string, error) {
	for _, value := range h.Values("Link") {
		for _, link := range strings.Split(value, ",") {
			target, ok := nextTarget(link)
			if !ok {
				continue
			}
			u, err := url.Parse(target)
			if err != nil {
				return "", fmt.Errorf("the Link to the next page, %q, is not a URL: %w", target, err)
			}
			after := u.Query().Get("after")
			if after == "" {
				return "", fmt.Errorf("the Link to the next page, %q, has no after", target)
			}
			return after, nil
		}
	}
	return "", nil
}

// nextTarget returns the target of one link-value, `<target>; rel="next"`,
// if its relations include next.
func nextTarget(link string) (string, bool) {
	link = strings.TrimSpace(link)
	end := strings.IndexByte(link, '>')
	if !strings.HasPrefix(link, "<") || end < 0 {
		return "", false
	}
	for param := range strings.SplitSeq(link[end+1:], ";") {
		name, value, ok := strings.Cut(param, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(name), "rel") {
			continue
		}
		rels := strings.Fields(strings.Trim(strings.TrimSpace(value), `"`))
		if slices.ContainsFunc(rels, func(r string) bool { return strings.EqualFold(r, "next") }) {
			return link[1:end], true
		}
	}
	return "", false
}
