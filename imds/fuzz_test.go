package imds

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/jonboulle/clockwork"
	"github.com/valyala/fasthttp"

	"github.com/forewarn/forewarn"
)

// fuzzVM is the VM at 192.0.2.1, the address httptest.NewRequest gives,
// in scope web, where idRebootScheduled is an event.
const fuzzVM = "web-9"

// fuzzMetadata approves idRebootScheduled for fuzzVM and nothing else. It
// records nothing: fakeMetadata's records would grow with every input of a
// long fuzzing run.
type fuzzMetadata struct{}

func (fuzzMetadata) Approve(_ context.Context, vm string, ids []string) error {
	for _, id := range ids {
		if id != idRebootScheduled || !strings.EqualFold(vm, fuzzVM) {
			return forewarn.Errorf(forewarn.ErrInvalid, "event %s is not in the document of VM %s", id, vm)
		}
	}
	return nil
}

func (fuzzMetadata) Enable(context.Context, string) error { return nil }

// fuzzServer is a Server with the fixtures and fuzzVM, without a rate
// limit, shut down so that long-polls answer at once.
func fuzzServer(tb testing.TB) *Server {
	tb.Helper()
	s := New(Config{Metadata: fuzzMetadata{}, Clock: clockwork.NewFakeClockAt(epoch)})
	for _, snap := range fixtureSnapshots() {
		s.PublishScope(snap)
	}
	snap := webSnapshot(4)
	snap.VMs = append(snap.VMs, &forewarn.VM{Name: fuzzVM, Scope: "web", Addresses: []string{"192.0.2.1"}})
	s.PublishScope(snap)
	s.Shutdown()
	return s
}

// checkStatus fails unless the status is a 2xx, 3xx or 4xx.
func checkStatus(tb testing.TB, status int, body []byte, what string) {
	tb.Helper()
	if status < 200 || status >= 500 {
		tb.Fatalf("%s: status %d: %s", what, status, body)
	}
}

// errorText is the "error" of an error answer's JSON body; it fails unless
// the body is such an object with a non-empty error.
func errorText(tb testing.TB, body []byte, what string) string {
	tb.Helper()
	var e struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Error == "" {
		tb.Fatalf("%s: error body %q is not a JSON error", what, body)
	}
	return e.Error
}

// FuzzPostBody: parseApproval refuses a body with a 400 that says why, or
// gives at least one id; the endpoint answers 200 exactly when the ids are
// the one event of the caller's document.
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
		target := eventsURL("2020-07-01")
		path, rawQuery, _ := strings.Cut(target, "?")
		status, answer := fuzzAnswer(s, http.MethodPost, path, rawQuery, body)
		checkStatus(t, status, answer, "POST")
		if (status == http.StatusOK) != (aerr == nil && len(ids) == 1 && ids[0] == idRebootScheduled) {
			t.Fatalf("status %d for ids %q (parse error %v)", status, ids, aerr)
		}
		if status != http.StatusOK {
			errorText(t, answer, "POST")
		}
	})
}

// engineRefused reports whether an answer is the plain-text error of a
// request refused before the handler, as net/http's server refuses it
// (readFast, on fasthttp).
func engineRefused(status int, body []byte) bool {
	return status >= 400 && strings.HasPrefix(string(body), strconv.Itoa(status)+" ")
}

// fuzzAnswer has s answer a request from fuzzRemote, with the Metadata
// header, in process, through the engine the -engine flag names: net/http's
// handler with a recorder, or fasthttp's with a RequestCtx whose request
// line carries path and rawQuery as sent.
func fuzzAnswer(s *Server, method, path, rawQuery string, body []byte) (int, []byte) {
	if *engine == "fasthttp" {
		var req fasthttp.Request
		req.Header.SetMethod(method)
		req.SetRequestURI(path + "?" + rawQuery)
		req.Header.SetHost("169.254.169.254")
		req.Header.Set("Metadata", "true")
		req.SetBody(body)
		var ctx fasthttp.RequestCtx
		ctx.Init(&req, fuzzRemote, nil)
		s.ServeFastHTTP(&ctx)
		return ctx.Response.StatusCode(), ctx.Response.Body()
	}
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	req.URL.RawQuery = rawQuery
	req.RemoteAddr = fuzzRemote.String()
	req.Header.Set("Metadata", "true")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

// FuzzQuery: a query string is refused with a 400 whose JSON error says
// why (parseQuery's own text when it is malformed or repeats a parameter),
// or answered 200, and only with an api-version the path supports.
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
		q, aerr := parseQuery(raw)
		if aerr != nil && aerr.status != http.StatusBadRequest {
			t.Fatalf("parseQuery: %v", aerr)
		}
		target := paths[int(path)%len(paths)]
		status, answer := fuzzAnswer(s, http.MethodGet, target, raw, nil)
		what := "GET " + target + "?" + raw
		if engineRefused(status, answer) {
			// On fasthttp, readFast refuses a control character in the
			// target before the handler, as net/http's server does.
			if !strings.ContainsFunc(raw, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				t.Fatalf("%s: refused before the handler: %d %s", what, status, answer)
			}
			return
		}
		switch status {
		case http.StatusOK:
			checkQueryAccepted(t, target, q, aerr, what)
		case http.StatusBadRequest:
			msg := errorText(t, answer, what)
			if aerr != nil && msg != aerr.msg {
				t.Fatalf("%s: error %q, want parseQuery's %q", what, msg, aerr.msg)
			}
		default:
			t.Fatalf("%s: status %d, want 200 or 400: %s", what, status, answer)
		}
	})
}

// checkQueryAccepted fails unless a query answered 200 parsed and names an
// api-version of the path.
func checkQueryAccepted(t *testing.T, path string, q query, aerr *apiError, what string) {
	t.Helper()
	if aerr != nil {
		t.Fatalf("%s: 200, but parseQuery refused it: %v", what, aerr)
	}
	var set versionSet
	switch path {
	case pathVersions:
		return
	case pathEvents:
		set = eventVersionSet
	default:
		set = instanceVersionSet
	}
	if _, ok := set.index[q["api-version"]]; !ok {
		t.Fatalf("%s: 200 for api-version %q", what, q["api-version"])
	}
}
