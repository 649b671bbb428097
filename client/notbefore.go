package client

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// notBeforeLayouts are the forms ParseNotBefore accepts, the service's
// own first.
var notBeforeLayouts = []string{
	time.RFC1123,
	"Mon, 2 Jan 2006 15:04:05 MST",
	time.RFC1123Z,
	"Mon, 2 Jan 2006 15:04:05 -0700",
	time.RFC3339Nano,
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05Z07:00",
	time.RFC850,
	time.ANSIC,
}

// ParseNotBefore reads a NotBefore: RFC 1123 as the service sends it
// ("Mon, 19 Sep 2016 18:29:47 GMT"), RFC 3339 ("2016-09-19T18:29:47Z"), or
// a few close variants. "" (a started event) gives the zero time. The
// result is in UTC; a time without a zone is taken as UTC.
func ParseNotBefore(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range notBeforeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return inYearRange(s, t.UTC())
		}
	}
	return time.Time{}, fmt.Errorf("NotBefore %q: not an RFC 1123 or RFC 3339 time", s)
}

// inYearRange refuses a time whose year in UTC is not 1 to 9999, such as
// 9999-12-31T23:00:00-02:00: FormatNotBefore would write it in a form
// ParseNotBefore cannot read back, and the agent's state file, which holds
// the events so written, would no longer load.
func inYearRange(s string, t time.Time) (time.Time, error) {
	if y := t.Year(); y < 1 || y > 9999 {
		return time.Time{}, fmt.Errorf("NotBefore %q: year %d in UTC, want 1 to 9999", s, y)
	}
	return t, nil
}

// FormatNotBefore writes t as the service does: RFC 1123 with GMT, "" for
// the zero time.
func FormatNotBefore(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(http.TimeFormat)
}
