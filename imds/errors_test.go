package imds

import (
	"errors"
	"net/http"
	"strings"
	"testing"
)

const (
	bodyNotFound   = `{"error":"Not found"}`
	bodyMethod     = `{"error":"Method not allowed"}`
	bodyForwarded  = `{"error":"Bad request. Requests with X-Forwarded-For header are not allowed"}`
	bodyMetadata   = `{"error":"Bad request. Required metadata header not specified"}`
	bodyDuplicate  = `{"error":"Bad request. Duplicate query parameter"}`
	bodyEventsVer  = `{"error":"Bad request. api-version is invalid or was not specified in the request. For more information refer to aka.ms/azureimds","newest-versions":["2020-07-01","2019-08-01","2019-04-01"]}`
	bodyInstVer    = `{"error":"Bad request. api-version is invalid or was not specified in the request. For more information refer to aka.ms/azureimds","newest-versions":["2023-07-01","2021-12-13","2021-11-15"]}`
	bodyForbidden  = `{"error":"Forbidden. The address 127.0.0.99 belongs to no VM"}`
	bodyTooMany    = `{"error":"Too many requests"}`
	bodyInternal   = `{"error":"Internal server error"}`
	bodyApproved   = `{}`
	approveOneBody = `{"StartRequests":[{"EventId":"602d9444-d2cd-49c7-8624-8643e7171297"}]}`
)

// errorCase is one row of SPEC.md 5, sent through the real listener.
type errorCase struct {
	name   string
	src    string
	method string
	target string
	body   string
	hdr    []string // name/value pairs, Metadata not added
	status int
	want   string
	// wantHdr are headers the answer must carry.
	wantHdr map[string]string
}

var md = []string{"Metadata", "true"}

func errorCases() []errorCase {
	ev := eventsURL("2020-07-01")
	inst := "/metadata/instance?api-version=2021-02-01"
	lp := map[string]string{longPollHeader: "true"}
	return []errorCase{
		// path
		{name: "unknown path", target: "/metadata/foo", hdr: md, status: 404, want: bodyNotFound},
		{name: "root", target: "/", hdr: md, status: 404, want: bodyNotFound},
		{name: "two trailing slashes", target: pathEvents + "//?api-version=2020-07-01", hdr: md, status: 404, want: bodyNotFound},
		{name: "other case", target: "/metadata/ScheduledEvents?api-version=2020-07-01", hdr: md, status: 404, want: bodyNotFound},
		{name: "unknown path before method", method: "DELETE", target: "/metadata/identity", status: 404, want: bodyNotFound},
		// method
		{name: "PUT events", method: "PUT", target: ev, hdr: md, status: 405, want: bodyMethod,
			wantHdr: map[string]string{"Allow": "GET, POST", longPollHeader: "true"}},
		{name: "HEAD events", method: "HEAD", target: ev, hdr: md, status: 405, want: "",
			wantHdr: map[string]string{"Allow": "GET, POST"}},
		{name: "POST instance", method: "POST", target: inst, hdr: md, status: 405, want: bodyMethod,
			wantHdr: map[string]string{"Allow": "GET"}},
		{name: "POST instance leaf", method: "POST", target: "/metadata/instance/compute/nope", status: 405, want: bodyMethod,
			wantHdr: map[string]string{"Allow": "GET"}},
		{name: "DELETE versions", method: "DELETE", target: pathVersions, hdr: md, status: 405, want: bodyMethod,
			wantHdr: map[string]string{"Allow": "GET"}},
		{name: "method before headers", method: "PATCH", target: ev, hdr: []string{"X-Forwarded-For", "1.2.3.4"},
			status: 405, want: bodyMethod},
		// X-Forwarded-For
		{name: "forwarded", target: ev, hdr: []string{"Metadata", "true", "X-Forwarded-For", "10.0.0.1"},
			status: 400, want: bodyForwarded, wantHdr: lp},
		{name: "forwarded empty", target: ev, hdr: []string{"Metadata", "true", "X-Forwarded-For", ""},
			status: 400, want: bodyForwarded},
		{name: "forwarded before metadata", target: ev, hdr: []string{"X-Forwarded-For", "10.0.0.1"},
			status: 400, want: bodyForwarded},
		{name: "forwarded POST", method: "POST", target: ev, body: approveOneBody,
			hdr: []string{"Metadata", "true", "X-Forwarded-For", "10.0.0.1"}, status: 400, want: bodyForwarded},
		{name: "forwarded versions", target: pathVersions, hdr: []string{"Metadata", "true", "X-Forwarded-For", "10.0.0.1"},
			status: 400, want: bodyForwarded},
		// Metadata header
		{name: "no metadata", target: ev, status: 400, want: bodyMetadata, wantHdr: lp},
		{name: "metadata false", target: ev, hdr: []string{"Metadata", "false"}, status: 400, want: bodyMetadata},
		{name: "metadata empty", target: ev, hdr: []string{"Metadata", ""}, status: 400, want: bodyMetadata},
		{name: "metadata yes", target: ev, hdr: []string{"Metadata", "yes"}, status: 400, want: bodyMetadata},
		{name: "metadata before version", target: pathEvents, status: 400, want: bodyMetadata},
		{name: "metadata before caller", src: addrUnknown, target: ev, status: 400, want: bodyMetadata},
		{name: "no metadata POST", method: "POST", target: ev, body: approveOneBody, status: 400, want: bodyMetadata},
		{name: "no metadata instance", target: inst, status: 400, want: bodyMetadata},
		{name: "no metadata versions", target: pathVersions, status: 400, want: bodyMetadata},
		{name: "metadata TRUE", target: eventsURL("2017-03-01"), hdr: []string{"Metadata", "TRUE"}, status: 200},
		{name: "metadata True", target: eventsURL("2017-03-01"), hdr: []string{"Metadata", "True"}, status: 200},
		// api-version
		{name: "no version", target: pathEvents, hdr: md, status: 400, want: bodyEventsVer, wantHdr: lp},
		{name: "empty version", target: pathEvents + "?api-version=", hdr: md, status: 400, want: bodyEventsVer},
		{name: "bad version", target: eventsURL("2018-01-01"), hdr: md, status: 400, want: bodyEventsVer},
		{name: "latest", target: eventsURL("latest"), hdr: md, status: 400, want: bodyEventsVer},
		{name: "instance version on events", target: eventsURL("2017-04-02"), hdr: md, status: 400, want: bodyEventsVer},
		{name: "version name case", target: pathEvents + "?API-VERSION=2020-07-01", hdr: md, status: 400, want: bodyEventsVer},
		{name: "no version POST", method: "POST", target: pathEvents, body: approveOneBody, hdr: md, status: 400, want: bodyEventsVer},
		{name: "version before caller", src: addrUnknown, target: pathEvents, hdr: md, status: 400, want: bodyEventsVer},
		{name: "no version instance", target: "/metadata/instance", hdr: md, status: 400, want: bodyInstVer},
		{name: "events version on instance", target: "/metadata/instance?api-version=2020-07-01", hdr: md, status: 400, want: bodyInstVer},
		{name: "no version leaf", target: "/metadata/instance/compute/name?format=text", hdr: md, status: 400, want: bodyInstVer},
		{name: "no version unknown leaf", target: "/metadata/instance/compute/nope", hdr: md, status: 400, want: bodyInstVer},
		// duplicate parameters
		{name: "duplicate version", target: ev + "&api-version=2020-07-01", hdr: md, status: 400, want: bodyDuplicate},
		{name: "duplicate unknown", target: ev + "&x=1&x=2", hdr: md, status: 400, want: bodyDuplicate},
		{name: "duplicate empty", target: ev + "&x&x", hdr: md, status: 400, want: bodyDuplicate},
		{name: "duplicate POST", method: "POST", target: ev + "&a=1&a=1", body: approveOneBody, hdr: md, status: 400, want: bodyDuplicate},
		{name: "duplicate versions", target: pathVersions + "?a=1&a=2", hdr: md, status: 400, want: bodyDuplicate},
		{name: "duplicate instance", target: inst + "&format=json&format=json", hdr: md, status: 400, want: bodyDuplicate},
		{name: "duplicate before caller", src: addrUnknown, target: ev + "&x=1&x=2", hdr: md, status: 400, want: bodyDuplicate},
		{name: "malformed query", target: ev + "&x=%zz", hdr: md, status: 400, want: `{"error":"Bad request. Malformed query string"}`},
		{name: "unknown parameter ignored", target: ev + "&foo=bar&format=text", hdr: md, status: 200},
		// long-poll parameters
		{name: "timeout 0", target: ev + "&wait_for_change=true&last_etag=4&timeout_sec=0", hdr: md, status: 400,
			want: `{"error":"Bad request. timeout_sec must be a whole number of seconds from 1 to 300"}`, wantHdr: lp},
		{name: "timeout 301", target: ev + "&timeout_sec=301", hdr: md, status: 400,
			want: `{"error":"Bad request. timeout_sec must be a whole number of seconds from 1 to 300"}`},
		{name: "timeout text", target: ev + "&timeout_sec=ten", hdr: md, status: 400,
			want: `{"error":"Bad request. timeout_sec must be a whole number of seconds from 1 to 300"}`},
		{name: "wait maybe", target: ev + "&wait_for_change=maybe", hdr: md, status: 400,
			want: `{"error":"Bad request. wait_for_change must be true or false"}`},
		// caller
		{name: "unknown caller", src: addrUnknown, target: ev, hdr: md, status: 403, want: bodyForbidden, wantHdr: lp},
		{name: "unknown caller POST", src: addrUnknown, method: "POST", target: ev, body: approveOneBody, hdr: md,
			status: 403, want: bodyForbidden},
		{name: "unknown caller instance", src: addrUnknown, target: inst, hdr: md, status: 403, want: bodyForbidden},
		{name: "unknown caller unknown leaf", src: addrUnknown, target: "/metadata/instance/compute/nope?api-version=2021-02-01",
			hdr: md, status: 403, want: bodyForbidden},
		{name: "unknown caller versions", src: addrUnknown, target: pathVersions, hdr: md, status: 200},
		// POST body
		{name: "not JSON", method: "POST", target: ev, body: `StartRequests=1`, hdr: md, status: 400,
			want: `{"error":"Bad request. The body is not valid JSON"}`},
		{name: "empty body", method: "POST", target: ev, hdr: md, status: 400,
			want: `{"error":"Bad request. The body is not valid JSON"}`},
		{name: "not an object", method: "POST", target: ev, body: `[1]`, hdr: md, status: 400,
			want: `{"error":"Bad request. The body must be a JSON object"}`},
		{name: "StartRequests missing", method: "POST", target: ev, body: `{"DocumentIncarnation":4}`, hdr: md,
			status: 400, want: `{"error":"Bad request. StartRequests is missing"}`},
		{name: "StartRequests not a list", method: "POST", target: ev, body: `{"StartRequests":{"EventId":"x"}}`,
			hdr: md, status: 400, want: `{"error":"Bad request. StartRequests must be a list"}`},
		{name: "StartRequests empty", method: "POST", target: ev, body: `{"StartRequests":[]}`, hdr: md,
			status: 400, want: `{"error":"Bad request. StartRequests is empty"}`},
		{name: "item not an object", method: "POST", target: ev, body: `{"StartRequests":["x"]}`, hdr: md,
			status: 400, want: `{"error":"Bad request. StartRequests[0] must be an object with an EventId"}`},
		{name: "EventId missing", method: "POST", target: ev, body: `{"StartRequests":[{"Id":"x"}]}`, hdr: md,
			status: 400, want: `{"error":"Bad request. StartRequests[0].EventId is missing"}`},
		{name: "EventId number", method: "POST", target: ev,
			body: `{"StartRequests":[{"EventId":"602d9444-d2cd-49c7-8624-8643e7171297"},{"EventId":5}]}`, hdr: md,
			status: 400, want: `{"error":"Bad request. StartRequests[1].EventId must be a string"}`},
		{name: "DocumentIncarnation bool", method: "POST", target: ev,
			body: `{"StartRequests":[{"EventId":"x"}],"DocumentIncarnation":true}`, hdr: md, status: 400,
			want: `{"error":"Bad request. DocumentIncarnation must be a number or a string"}`},
		{name: "EventId unknown", method: "POST", target: ev,
			body: `{"StartRequests":[{"EventId":"602d9444-d2cd-49c7-8624-8643e7171297"},{"EventId":"BAD-ID"}]}`,
			hdr:  md, status: 400, want: `{"error":"event bad-id is not in the document of VM web-0"}`},
		{name: "EventId of another scope", method: "POST", target: ev,
			body: `{"StartRequests":[{"EventId":"` + idDBReboot + `"}]}`, hdr: md, status: 400,
			want: `{"error":"event ` + idDBReboot + ` is not in the document of VM web-0"}`},
		{name: "too large", method: "POST", target: ev, body: strings.Repeat(" ", maxBody+1), hdr: md, status: 413,
			want: `{"error":"Request body too large. The limit is 65536 bytes"}`, wantHdr: lp},
		{name: "too large after caller", src: addrUnknown, method: "POST", target: ev,
			body: strings.Repeat(" ", maxBody+1), hdr: md, status: 403, want: bodyForbidden},
		// instance leaves
		{name: "leaf without text", target: "/metadata/instance/compute/name?api-version=2021-02-01", hdr: md,
			status: 400, want: `{"error":"Bad request. A leaf node is only available with format=text"}`},
		{name: "leaf json", target: "/metadata/instance/compute/name?api-version=2021-02-01&format=json", hdr: md,
			status: 400, want: `{"error":"Bad request. A leaf node is only available with format=text"}`},
		{name: "text on object", target: "/metadata/instance/compute?api-version=2021-02-01&format=text", hdr: md,
			status: 400, want: `{"error":"Bad request. format=text is only available for leaf nodes"}`},
		{name: "bad format", target: "/metadata/instance?api-version=2021-02-01&format=xml", hdr: md,
			status: 400, want: `{"error":"Bad request. format must be json or text"}`},
		{name: "unknown leaf", target: "/metadata/instance/compute/nope?api-version=2021-02-01&format=text", hdr: md,
			status: 404, want: bodyNotFound},
		{name: "below a leaf", target: "/metadata/instance/compute/name/x?api-version=2021-02-01&format=text", hdr: md,
			status: 404, want: bodyNotFound},
		{name: "index out of range", target: "/metadata/instance/network/interface/1?api-version=2021-02-01", hdr: md,
			status: 404, want: bodyNotFound},
		{name: "index not canonical", target: "/metadata/instance/network/interface/00?api-version=2021-02-01", hdr: md,
			status: 404, want: bodyNotFound},
		{name: "empty segment", target: "/metadata/instance//compute?api-version=2021-02-01", hdr: md,
			status: 404, want: bodyNotFound},
	}
}

// TestErrors sends every row of SPEC.md 5 through the real listener.
func TestErrors(t *testing.T) {
	e := mustStartEnv(t)
	for _, c := range errorCases() {
		t.Run(c.name, func(t *testing.T) {
			src, method := c.src, c.method
			if src == "" {
				src = addrWeb0
			}
			if method == "" {
				method = http.MethodGet
			}
			a := e.do(t, src, method, c.target, strings.NewReader(c.body), c.hdr...)
			if a.status != c.status {
				t.Fatalf("status %d, want %d (body %s)", a.status, c.status, a.body)
			}
			if c.want != "" || c.status >= 400 && method != http.MethodHead {
				if a.body != c.want {
					t.Errorf("body\n got %s\nwant %s", a.body, c.want)
				}
				if ct := a.header.Get("Content-Type"); c.status >= 400 && ct != contentTypeJSON {
					t.Errorf("Content-Type %q", ct)
				}
			}
			for k, v := range c.wantHdr {
				if got := a.header.Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
		})
	}
	if got := e.meta.approvalsMade(); len(got) != 0 {
		t.Errorf("approvals made by refused requests: %v", got)
	}
}

// TestLongPollHeaderOnlyOnEvents checks that other paths lack the header.
func TestLongPollHeaderOnlyOnEvents(t *testing.T) {
	e := mustStartEnv(t)
	for _, target := range []string{pathVersions, "/metadata/instance?api-version=2021-02-01", "/metadata/nope"} {
		if a := e.get(t, addrWeb0, target); a.header.Get(longPollHeader) != "" {
			t.Errorf("%s carries %s", target, longPollHeader)
		}
	}
}

// TestInternalErrors checks that failures of the control plane are a 500
// with a generic text.
func TestInternalErrors(t *testing.T) {
	e := mustStartEnv(t)
	e.meta.setEnableErr(errors.New("store is on fire"))
	a := e.get(t, addrWeb0, eventsURL("2020-07-01"))
	checkAnswer(t, a, http.StatusInternalServerError, bodyInternal)
	if a.header.Get(longPollHeader) != "true" {
		t.Errorf("500 lacks %s", longPollHeader)
	}

	e.meta.setApproveErr(errors.New("store is on fire"))
	a = e.post(t, addrWeb0, eventsURL("2020-07-01"), approveOneBody)
	checkAnswer(t, a, http.StatusInternalServerError, bodyInternal)

	// The instance path does not need the control plane.
	a = e.get(t, addrWeb0, "/metadata/instance/compute/name?api-version=2021-02-01&format=text")
	checkAnswer(t, a, http.StatusOK, "web-0")
}
