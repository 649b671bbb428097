package imds

import (
	"net/url"
	"strings"
)

// query is a parsed query string: each parameter once.
type query map[string]string

// has reports whether the parameter was given, possibly empty.
func (q query) has(name string) bool {
	_, ok := q[name]
	return ok
}

// parseQuery parses a raw query string. Unlike url.ParseQuery it refuses a
// parameter given twice, and it takes ';' as an ordinary character. Empty
// pieces ("a=1&&b=2") are skipped; a piece without '=' has an empty value.
func parseQuery(raw string) (query, *apiError) {
	q := query{}
	if aerr := q.parse(raw); aerr != nil {
		return nil, aerr
	}
	return q, nil
}

// parse adds the parameters of a raw query string to q (see parseQuery).
func (q query) parse(raw string) *apiError {
	for raw != "" {
		var piece string
		piece, raw, _ = strings.Cut(raw, "&")
		if piece == "" {
			continue
		}
		k, v, _ := strings.Cut(piece, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			return errMalformedQuery
		}
		value, err := url.QueryUnescape(v)
		if err != nil {
			return errMalformedQuery
		}
		if q.has(key) {
			return errDuplicate
		}
		q[key] = value
	}
	return nil
}
