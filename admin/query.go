package admin

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// History limits of GET /v1/history: its pages are at most as large as
// the other listings'.
const (
	defaultHistoryLimit = 100
	maxHistoryLimit     = MaxListLimit
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

// parseLimit reads the limit parameter of the history: a whole number from 1
// to maxHistoryLimit, defaultHistoryLimit if absent.
func parseLimit(q url.Values) (int, error) {
	if !q.Has("limit") {
		return defaultHistoryLimit, nil
	}
	s := q.Get("limit")
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxHistoryLimit {
		return 0, invalid("query parameter limit must be a whole number from 1 to %d, not %q", maxHistoryLimit, s)
	}
	return n, nil
}
