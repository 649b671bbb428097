package imds

import (
	"net/http"
	"testing"
)

// TestETag checks If-None-Match against the document's ETag "4".
func TestETag(t *testing.T) {
	e := mustStartEnv(t)
	cases := []struct {
		name   string
		values []string // one If-None-Match header line each
		status int
	}{
		{"none", nil, 200},
		{"match", []string{`"4"`}, 304},
		{"no match", []string{`"3"`}, 200},
		{"list", []string{`"1", "2","4"`}, 304},
		{"list without match", []string{`"1", "2", "44"`}, 200},
		{"two lines", []string{`"1"`, `"4"`}, 304},
		{"weak", []string{`W/"4"`}, 304},
		{"weak in list", []string{`"3", W/"4"`}, 304},
		{"star", []string{`*`}, 304},
		{"unquoted", []string{`4`}, 200},
		{"unquoted in list", []string{`4, 5`}, 200},
		{"zero", []string{`0`}, 200},
		{"quoted zero", []string{`"0"`}, 200},
		{"empty", []string{``}, 200},
		{"garbage then match", []string{`x, "4"`}, 304},
		{"unterminated", []string{`"4`}, 200},
		{"lone weak", []string{`W/`}, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var hdr []string
			for _, v := range c.values {
				hdr = append(hdr, "If-None-Match", v)
			}
			a := e.get(t, addrWeb0, eventsURL("2019-01-01"), hdr...)
			if a.status != c.status {
				t.Fatalf("status %d, want %d", a.status, c.status)
			}
			if got := a.header.Get("ETag"); got != `"4"` {
				t.Errorf("ETag %q", got)
			}
			if a.header.Get(longPollHeader) != "true" {
				t.Errorf("no %s", longPollHeader)
			}
			if c.status == http.StatusNotModified && a.body != "" {
				t.Errorf("304 with a body: %q", a.body)
			}
			if c.status == http.StatusOK && a.body == "" {
				t.Error("200 without a body")
			}
		})
	}
}

// TestETagIgnoredOnPost checks that If-None-Match does not stop an approval.
func TestETagIgnoredOnPost(t *testing.T) {
	e := mustStartEnv(t)
	a := e.post(t, addrWeb0, eventsURL("2019-01-01"), approveOneBody, "If-None-Match", `"4"`)
	checkAnswer(t, a, http.StatusOK, bodyApproved)
	if n := len(e.meta.approvalsMade()); n != 1 {
		t.Errorf("%d approvals, want 1", n)
	}
}

// TestETagFollowsIncarnation checks that a new incarnation changes the ETag
// and the cached document.
func TestETagFollowsIncarnation(t *testing.T) {
	e := mustStartEnv(t)
	e.get(t, addrWeb0, eventsURL("2020-07-01")) // renders and caches incarnation 4
	snap := webSnapshot(5)
	snap.Events = snap.Events[:1]
	e.publish(snap)
	a := e.get(t, addrWeb0, eventsURL("2020-07-01"), "If-None-Match", `"4"`)
	if a.status != http.StatusOK {
		t.Fatalf("status %d", a.status)
	}
	checkDocumentHeaders(t, a, `"5"`)
	mustContain(t, a.body, `{"DocumentIncarnation":5,"Events":[{"EventId":"0b4c2a11-6f0e-4c1b-9d2e-0a1b2c3d4e01"`)
	if a := e.get(t, addrWeb0, eventsURL("2020-07-01"), "If-None-Match", `"5"`); a.status != http.StatusNotModified {
		t.Errorf("status %d, want 304", a.status)
	}
}

// TestNoneMatch checks the If-None-Match parser on its own.
func TestNoneMatch(t *testing.T) {
	cases := []struct {
		fields []string
		want   bool
	}{
		{[]string{`"12"`}, true},
		{[]string{`"1,2"`}, false},
		{[]string{`"1,2", "12"`}, true},
		{[]string{` , ,"12"`}, true},
		{[]string{`W/"12"`}, true},
		{[]string{`w/"12"`}, false},
		{[]string{`"12"x`}, true},
		{[]string{`x"12"`}, false},
		{[]string{`*`}, true},
		{[]string{``, `12`}, false},
	}
	for _, c := range cases {
		if got := noneMatch(c.fields, "12"); got != c.want {
			t.Errorf("noneMatch(%q) = %v, want %v", c.fields, got, c.want)
		}
	}
}
