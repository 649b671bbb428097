package client

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// FuzzDecodeDocument: a body the client decodes as a document has a
// non-nil Events whose NotBefores are UTC, and it encodes (as the agent
// writes it in its state file) to JSON that decodes to the same document.
func FuzzDecodeDocument(f *testing.F) {
	f.Add(`{"DocumentIncarnation":4,"Events":[{"EventId":"a","NotBefore":"Mon, 19 Sep 2016 18:29:47 GMT","DurationInSeconds":-1}]}`)
	f.Add(`{"DocumentIncarnation":"7","Events":null}`)
	f.Add(`{"DocumentIncarnation":1e3}`)
	f.Add(`{"DocumentIncarnation":" 2 ","Events":[{"EventId":"b","EventType":"Reboot","Resources":["_web-0"],` +
		`"EventStatus":"Started","NotBefore":"","DurationInSeconds":"0"}]}`)
	f.Add(`{"Events":[{"NotBefore":"2016-09-19T20:29:47+02:00"},{"NotBefore":"Mon, 19 Sep 2016 18:29:47 +0000"}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		var doc Document
		if err := json.Unmarshal([]byte(in), &doc); err != nil {
			if err.Error() == "" {
				t.Fatalf("%q: empty error", in)
			}
			return
		}
		if doc.Events == nil {
			t.Fatalf("%q: decoded document has nil Events", in)
		}
		for _, e := range doc.Events {
			if !e.NotBefore.IsZero() && e.NotBefore.Location() != time.UTC {
				t.Fatalf("%q: NotBefore %v is not UTC", in, e.NotBefore)
			}
		}
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatalf("%q: re-encode: %v", in, err)
		}
		var again Document
		if err := json.Unmarshal(b, &again); err != nil {
			t.Fatalf("%q: decode of own encoding %s: %v", in, b, err)
		}
		if again.DocumentIncarnation != doc.DocumentIncarnation || !slices.EqualFunc(doc.Events, again.Events, sameEvent) {
			t.Fatalf("%q: round trip changed %+v into %+v", in, doc, again)
		}
	})
}

// sameEvent reports whether b is a as encoded and decoded: equal, but for
// the fraction of a second of NotBefore, which RFC 1123 does not show.
func sameEvent(a, b Event) bool {
	return a.EventId == b.EventId && a.EventType == b.EventType && a.ResourceType == b.ResourceType &&
		slices.Equal(a.Resources, b.Resources) && a.EventStatus == b.EventStatus &&
		a.NotBefore.Truncate(time.Second).Equal(b.NotBefore) && a.Description == b.Description &&
		a.EventSource == b.EventSource && a.DurationInSeconds == b.DurationInSeconds
}

// TestNotBeforeYearRange: a NotBefore whose year in UTC is outside 1 to
// 9999 is refused, where it was taken and then written back as a time that
// does not parse (found by FuzzDecodeDocument; an agent that had stored such an
// event could no longer load its state file). The years at the edges of the
// range still make the round trip.
func TestNotBeforeYearRange(t *testing.T) {
	for _, in := range []string{"9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+01:00", "0000-06-01T00:00:00Z"} {
		if got, err := ParseNotBefore(in); err == nil || !strings.Contains(err.Error(), "want 1 to 9999") {
			t.Errorf("ParseNotBefore(%q) = %v, %v; want a year out of range", in, got, err)
		}
	}
	for _, in := range []string{"9999-12-31T23:59:59Z", "0001-01-01T00:00:01Z", "Fri, 31 Dec 9999 23:59:59 GMT"} {
		got, err := ParseNotBefore(in)
		if err != nil {
			t.Fatalf("ParseNotBefore(%q): %v", in, err)
		}
		again, err := ParseNotBefore(FormatNotBefore(got))
		if err != nil || !again.Equal(got) {
			t.Errorf("%q: %v written as %q reads back %v, %v", in, got, FormatNotBefore(got), again, err)
		}
	}
}
