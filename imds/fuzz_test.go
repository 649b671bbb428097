package imds

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jonboulle/clockwork"

	"github.com/forewarn/forewarn"
)

// fuzzServer is a Server with the fixtures, shut down so that long-polls
// answer at once, and a VM at 192.0.2.1, the address httptest.NewRequest
// gives.
func fuzzServer(tb testing.TB) *Server {
	tb.Helper()
	meta := &fakeMetadata{known: map[string]string{}, vmScope: map[string]string{}}
	s := New(Config{Metadata: meta, Clock: clockwork.NewFakeClockAt(epoch)})
	for _, snap := range fixtureSnapshots() {
		s.PublishScope(snap)
	}
	snap := webSnapshot(4)
	snap.VMs = append(snap.VMs, &forewarn.VM{Name: "web-9", Scope: "web", Addresses: []string{"192.0.2.1"}})
	s.PublishScope(snap)
	meta.known[idRebootScheduled] = "web"
	meta.vmScope["web-9"] = "web"
	s.Shutdown()
	return s
}

// checkStatus fails unless the status is a 2xx, 3xx or 4xx.
func checkStatus(tb testing.TB, rec *httptest.ResponseRecorder, what string) {
	tb.Helper()
	if rec.Code < 200 || rec.Code >= 500 {
		tb.Fatalf("%s: status %d: %s", what, rec.Code, rec.Body)
	}
}

func FuzzPostBody(f *testing.F) {
	for _, seed := range []string{
		approveOneBody,
		`{"DocumentIncarnation":"5", "StartRequests": [{"EventId": "f020ba2e-3bc0-4c40-a10b-86575a9eabd5"}]}`,
		`{"StartRequests":[{"EventId":"602d9444-d2cd-49c7-8624-8643e7171297"}],"DocumentIncarnation":4}`,
		`{"StartRequests":[]}`, `{"StartRequests":{}}`, `{"StartRequests":[{"EventId":1}]}`,
		`{"StartRequests":[null]}`, `{"startrequests":[{"eventid":"x"}]}`, `null`, `[]`, ``, `{`,
		`{"StartRequests":[{"EventId":"a"}],"DocumentIncarnation":true}`,
	} {
		f.Add([]byte(seed))
	}
	s := fuzzServer(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		ids, aerr := parseApproval(body)
		if aerr != nil && (aerr.status != http.StatusBadRequest || aerr.msg == "") {
			t.Fatalf("parseApproval: %v", aerr)
		}
		if aerr == nil && len(ids) == 0 {
			t.Fatal("parseApproval accepted no ids")
		}
		req := httptest.NewRequest(http.MethodPost, eventsURL("2020-07-01"), strings.NewReader(string(body)))
		req.Header.Set("Metadata", "true")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		checkStatus(t, rec, "POST")
		if (rec.Code == http.StatusOK) != (aerr == nil && len(ids) == 1 && ids[0] == idRebootScheduled) {
			t.Fatalf("status %d for ids %q (parse error %v)", rec.Code, ids, aerr)
		}
	})
}

func FuzzQuery(f *testing.F) {
	for _, seed := range []string{
		"api-version=2020-07-01",
		"api-version=2017-03-01&wait_for_change=true&last_etag=%224%22&timeout_sec=10",
		"api-version=2021-02-01&format=text",
		"api-version=2020-07-01&api-version=2020-07-01",
		"api-version=%zz", "&&=&", "timeout_sec=99999999999999999999&wait_for_change=TRUE",
		"a;b=c", "api-version=2019-01-01&last_etag=W/%224%22&wait_for_change=true",
	} {
		f.Add(uint8(0), seed)
	}
	f.Add(uint8(1), "api-version=2021-02-01&format=text")
	f.Add(uint8(2), "x=1")
	s := fuzzServer(f)
	paths := []string{pathEvents, "/metadata/instance/compute/name", pathVersions, "/metadata/instance"}
	f.Fuzz(func(t *testing.T, path uint8, raw string) {
		if _, aerr := parseQuery(raw); aerr != nil && aerr.status != http.StatusBadRequest {
			t.Fatalf("parseQuery: %v", aerr)
		}
		req := httptest.NewRequest(http.MethodGet, paths[int(path)%len(paths)], nil)
		req.URL.RawQuery = raw
		req.Header.Set("Metadata", "true")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		checkStatus(t, rec, "GET ?"+raw)
	})
}
