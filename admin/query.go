package admin

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/forewarn/forewarn"
)

// The page sizes of GET /v1/vms and GET /v1/events.
const (
	// DefaultListLimit is the page size of a listing that names no limit.
	DefaultListLimit = 1000
	// MaxListLimit is the largest page a listing answers.
	MaxListLimit = 10000
)

// defaultHistoryLimit is the page size of GET /v1/history that names no
// limit; its pages are at most as large as the other listings'.
const defaultHistoryLimit = 100

// The query parameters of the listings.
var (
	vmListParams    = []string{"scope", "updateDomain", "priority", "after", "limit"}
	eventListParams = []string{"scope", "type", "status", "source", "after", "limit"}
	historyParams   = []string{"after", "limit"}
)

// checkQuery parses a query string and refuses parameters that the route
// does not take, parameters given more than once, and malformed queries.
func checkQuery(raw string, allowed []string) (url.Values, error) {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return nil, invalid("malformed query string: %v", err)
	}
	for _, name := range slices.Sorted(maps.Keys(q)) {
		if !slices.Contains(allowed, name) {
			return nil, unknownParam(name, allowed)
		}
		if n := len(q[name]); n > 1 {
			return nil, invalid("query parameter %q is given %d times", name, n)
		}
	}
	return q, nil
}

// unknownParam says which parameter is unknown and which the route takes.
func unknownParam(name string, allowed []string) error {
	if len(allowed) == 0 {
		return invalid("unknown query parameter %q: this route takes none", name)
	}
	return invalid("unknown query parameter %q: this route takes %s", name, strings.Join(allowed, ", "))
}

// parseVMQuery reads the query parameters of GET /v1/vms.
func parseVMQuery(q url.Values) (forewarn.VMQuery, error) {
	var err error
	vq := forewarn.VMQuery{Scope: q.Get("scope"), After: q.Get("after")}
	if vq.Limit, err = parseLimit(q, DefaultListLimit); err != nil {
		return vq, err
	}
	if vq.UpdateDomain, err = parseUpdateDomain(q); err != nil {
		return vq, err
	}
	vq.Priority, err = parseChoice(q, "priority", forewarn.Priorities)
	return vq, err
}

// parseEventQuery reads the query parameters of GET /v1/events.
func parseEventQuery(q url.Values) (forewarn.EventQuery, error) {
	var err error
	eq := forewarn.EventQuery{Scope: q.Get("scope"), After: q.Get("after")}
	if eq.Limit, err = parseLimit(q, DefaultListLimit); err != nil {
		return eq, err
	}
	if eq.Type, err = parseChoice(q, "type", forewarn.EventTypes); err != nil {
		return eq, err
	}
	if eq.Status, err = parseChoice(q, "status", forewarn.EventStatuses); err != nil {
		return eq, err
	}
	eq.Source, err = parseChoice(q, "source", forewarn.Sources)
	return eq, err
}

// parseLimit reads the page size of a listing: a whole number from 1 to
// MaxListLimit, def if absent.
func parseLimit(q url.Values, def int) (int, error) {
	if !q.Has("limit") {
		return def, nil
	}
	s := q.Get("limit")
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxListLimit {
		return 0, invalid("query parameter limit must be a whole number from 1 to %d, not %q", MaxListLimit, s)
	}
	return n, nil
}

// parseUpdateDomain reads the updateDomain filter, nil if absent.
func parseUpdateDomain(q url.Values) (*int, error) {
	if !q.Has("updateDomain") {
		return nil, nil
	}
	s := q.Get("updateDomain")
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n >= forewarn.MaxUpdateDomains {
		return nil, invalid("query parameter updateDomain must be a whole number from 0 to %d, not %q",
			forewarn.MaxUpdateDomains-1, s)
	}
	return &n, nil
}

// parseChoice reads a filter that takes one of choices, in any case, and
// returns it as spelt in choices; "" if absent.
func parseChoice[T ~string](q url.Values, name string, choices []T) (T, error) {
	if !q.Has(name) {
		return "", nil
	}
	s := q.Get(name)
	v, ok := forewarn.Canonical(s, choices)
	if !ok {
		return "", invalid("query parameter %s must be %s, not %q", name, forewarn.OneOf(choices), s)
	}
	return v, nil
}

// vmQueryValues is the query string of a VM listing: its filters, its
// cursor and its page size, the parameters left out where unset.
func vmQueryValues(q forewarn.VMQuery) url.Values {
	v := url.Values{}
	set(v, "scope", q.Scope)
	if q.UpdateDomain != nil {
		v.Set("updateDomain", strconv.Itoa(*q.UpdateDomain))
	}
	set(v, "priority", string(q.Priority))
	setPage(v, q.After, q.Limit)
	return v
}

// eventQueryValues is the query string of an event listing.
func eventQueryValues(q forewarn.EventQuery) url.Values {
	v := url.Values{}
	set(v, "scope", q.Scope)
	set(v, "type", string(q.Type))
	set(v, "status", string(q.Status))
	set(v, "source", string(q.Source))
	setPage(v, q.After, q.Limit)
	return v
}

// historyQueryValues is the query string of a page of the history.
func historyQueryValues(q forewarn.HistoryQuery) url.Values {
	v := url.Values{}
	setPage(v, q.After, q.Limit)
	return v
}

// set sets a parameter that is not empty.
func set(v url.Values, name, value string) {
	if value != "" {
		v.Set(name, value)
	}
}

// setPage sets the cursor and the page size, if any.
func setPage(v url.Values, after string, limit int) {
	set(v, "after", after)
	if limit > 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
}

// setNextLink answers, when there is a next page, a Link header (RFC 8288)
// to it: the same path and query, with after set to its cursor.
func setNextLink(w http.ResponseWriter, r *http.Request, query url.Values, next string) {
	if next == "" {
		return
	}
	query.Set("after", next)
	target := url.URL{Path: r.URL.Path, RawQuery: query.Encode()}
	w.Header().Set("Link", "<"+target.String()+`>; rel="next"`)
}
