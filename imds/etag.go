package imds

import "strings"

// noneMatch reports whether If-None-Match field values match the entity tag
// whose opaque part (without quotes) is etag, by the weak comparison of
// RFC 9110 13.1.2: "*" matches, and so does any listed entity tag, weak or
// strong, with the same opaque part. An unquoted value never matches.
func noneMatch(fields []string, etag string) bool {
	for _, f := range fields {
		if fieldMatches(f, etag) {
			return true
		}
	}
	return false
}

// fieldMatches checks one If-None-Match field value, a comma-separated list.
func fieldMatches(f, etag string) bool {
	for {
		f = strings.TrimLeft(f, " \t,")
		if f == "" {
			return false
		}
		if f[0] == '*' {
			return true
		}
		f = strings.TrimPrefix(f, "W/")
		if f == "" || f[0] != '"' {
			// Not an entity tag: skip to the next list member.
			_, rest, found := strings.Cut(f, ",")
			if !found {
				return false
			}
			f = rest
			continue
		}
		opaque, rest, found := strings.Cut(f[1:], `"`)
		if !found {
			return false
		}
		if opaque == etag {
			return true
		}
		f = rest
	}
}

// opaqueETag strips an entity tag's weak prefix and quotes, if it has them.
func opaqueETag(s string) string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "W/")
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}
