package imds

import (
	"net/http"
	"testing"
)

// TestGoldenScheduledEvents checks the document of every api-version byte for
// byte, from a scope with a Scheduled and a Started event of every type.
func TestGoldenScheduledEvents(t *testing.T) {
	e := mustStartEnv(t)
	for _, v := range eventVersions {
		t.Run(v.name, func(t *testing.T) {
			a := e.get(t, addrWeb0, eventsURL(v.name))
			if a.status != http.StatusOK {
				t.Fatalf("status %d: %s", a.status, a.body)
			}
			checkDocumentHeaders(t, a, `"4"`)
			golden(t, "scheduledevents-"+v.name+".json", a.body)
		})
	}
}

// TestGoldenEmptyDocument checks a scope without events: "Events":[].
func TestGoldenEmptyDocument(t *testing.T) {
	e := mustStartEnv(t)
	a := e.get(t, addrPool0, eventsURL("2020-07-01"))
	checkAnswer(t, a, http.StatusOK, `{"DocumentIncarnation":1,"Events":[]}`)
}

// TestGoldenInstance checks the instance document and its compute subtree.
func TestGoldenInstance(t *testing.T) {
	e := mustStartEnv(t)
	cases := []struct{ name, src, target string }{
		{"instance.json", addrWeb0, "/metadata/instance?api-version=2021-02-01"},
		{"instance-compute.json", addrWeb0, "/metadata/instance/compute?api-version=2017-08-01"},
		{"instance-scaleset.json", addrPool0, "/metadata/instance?api-version=2023-07-01"},
		{"instance-network.json", addrPool0, "/metadata/instance/network/?api-version=2017-04-02"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := e.get(t, c.src, c.target)
			if a.status != http.StatusOK {
				t.Fatalf("status %d: %s", a.status, a.body)
			}
			if ct := a.header.Get("Content-Type"); ct != contentTypeJSON {
				t.Errorf("Content-Type %q", ct)
			}
			golden(t, c.name, a.body)
		})
	}
}

// TestGoldenVersions checks /metadata/versions.
func TestGoldenVersions(t *testing.T) {
	e := mustStartEnv(t)
	a := e.get(t, addrWeb0, pathVersions)
	if a.status != http.StatusOK {
		t.Fatalf("status %d: %s", a.status, a.body)
	}
	golden(t, "versions.json", a.body)
}

// checkDocumentHeaders checks the headers of a 200 document answer.
func checkDocumentHeaders(tb testing.TB, a answer, etag string) {
	tb.Helper()
	if ct := a.header.Get("Content-Type"); ct != contentTypeJSON {
		tb.Errorf("Content-Type %q, want %q", ct, contentTypeJSON)
	}
	if got := a.header.Get("ETag"); got != etag {
		tb.Errorf("ETag %q, want %q", got, etag)
	}
	if got := a.header.Get(longPollHeader); got != "true" {
		tb.Errorf("%s %q, want true", longPollHeader, got)
	}
}
