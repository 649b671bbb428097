package e2e

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// The timeouts of serve's listeners (cmd/forewarn/serve_http.go).
const (
	abuseHeaderTimeout = 5 * time.Second
	abuseReadTimeout   = 10 * time.Second
)

// TestAbuse sends hostile requests to both listeners of a real serve, with
// an event Scheduled: each gets its 4xx or is cut off, nothing changes,
// and the server keeps serving. Slow clients, which the timeouts cut off,
// run while the table does; a long-poll is held through all of it.
func TestAbuse(t *testing.T) {
	ctx := context.Background()
	s := startServer(t, t.TempDir())
	token := abuseToken(t, s)
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	s.get("api-version=2020-07-01") // enables the scope: the restart gets its 15 min of notice
	event, err := s.admin.Operate(ctx, host, forewarn.OpRestart)
	if err != nil {
		t.Fatal(err)
	}
	before := abuseSnapshot(t, s)
	incarnation := decode(t, before.Document).DocumentIncarnation

	poll := abuseLongPoll(s, incarnation)
	slow := startSlowClients(t, s, token, event.ID)
	keptAlive := abuseKeepAlive(s)
	// Normal requests are answered while the slow clients are stuck: before
	// the server has cut any off, which the first is at the header timeout.
	abuseServes(t, s)
	if n := slow.cut.Load(); n > 0 {
		t.Fatalf("normal requests were answered only after the server cut %d slow clients off", n)
	}

	for _, c := range abuseCases(token, event.ID) {
		t.Run(c.name, func(t *testing.T) { c.check(t, s) })
	}
	abuseServes(t, s)
	slow.wait(t)
	if err := <-keptAlive; err != nil {
		t.Error(err)
	}
	if after := abuseSnapshot(t, s); !reflect.DeepEqual(before, after) {
		t.Fatalf("the hostile requests changed the state:\nbefore %s\nafter  %s", abuseJSON(before), abuseJSON(after))
	}
	abuseCheckLongPolls(t, s, poll, event.ID, incarnation)
}

// abuseCase is one hostile request and its expected answer.
type abuseCase struct {
	name   string
	admin  bool   // sent to the admin API, else to the metadata endpoint
	req    string // the request's bytes, as sent
	status int    // the answer's; a connection cut without one fails
	want   string // a part of the answer's body, if not ""
	// closes: the server closes the connection after its answer, rather
	// than reading what follows as another request.
	closes bool
}

// The body texts the cases look for.
const (
	textMetadata  = "Required metadata header not specified"
	textForwarded = "Requests with X-Forwarded-For header are not allowed"
	textVersion   = "api-version is invalid"
	textDuplicate = "Duplicate query parameter"
	textUnread    = "The body could not be read"
	textNotJSON   = "The body is not valid JSON"
	textMethod    = "Method not allowed"
	textNotFound  = "Not found"
	textTooLarge  = "Request body too large"
	textNoToken   = "missing bearer token"
	textBadToken  = "invalid bearer token"
)

// abuseEvents is the document's path and query.
const abuseEvents = "/metadata/scheduledevents?api-version=2020-07-01"

// head is a request's line and header lines, ended by the empty line.
func head(lines ...string) string {
	return strings.Join(lines, "\r\n") + "\r\n\r\n"
}

// metaGet is a GET of target from a well-behaved client, plus hdr lines.
func metaGet(target string, hdr ...string) string {
	return head(append([]string{"GET " + target + " HTTP/1.1", "Host: 169.254.169.254", "Metadata: true"}, hdr...)...)
}

// metaReq is a request of method to target without a Metadata header,
// with the header lines hdr.
func metaReq(method, target string, hdr ...string) string {
	return head(append([]string{method + " " + target + " HTTP/1.1", "Host: 169.254.169.254"}, hdr...)...)
}

// post is a POST of body to target with its Content-Length, plus hdr lines.
func post(target, body string, hdr ...string) string {
	lines := []string{"POST " + target + " HTTP/1.1", "Host: h", fmt.Sprintf("Content-Length: %d", len(body))}
	return head(append(lines, hdr...)...) + body
}

// chunkedPost is a POST of target with the chunked body, plus hdr lines.
func chunkedPost(target, body string, hdr ...string) string {
	lines := []string{"POST " + target + " HTTP/1.1", "Host: h", "Transfer-Encoding: chunked"}
	return head(append(lines, hdr...)...) + body
}

// http10Chunked is an HTTP/1.0 request (line without the version, header
// lines hdr) that asks to keep the connection alive, with inner as its
// chunked body: a request smuggled past a proxy that would take the chunks
// for the body, should the server take them for its next request.
func http10Chunked(line, inner string, hdr ...string) string {
	lines := []string{line + " HTTP/1.0", "Host: h", "Connection: keep-alive", "Transfer-Encoding: chunked"}
	return head(append(lines, hdr...)...) + fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(inner), inner)
}

// abuseCases are the hostile requests, with token the admin token and id
// the event Scheduled.
func abuseCases(token, id string) []abuseCase {
	var cases []abuseCase
	for _, group := range [][]abuseCase{
		metaBodyCases(id), metaFramingCases(id), metaQueryCases(), metaMethodCases(),
		metaHeaderCases(id), adminAuthCases(token, id), adminBodyCases(token, id),
	} {
		cases = append(cases, group...)
	}
	return cases
}

// approval is a POST body that approves id.
func approval(id string) string {
	return `{"StartRequests":[{"EventId":"` + id + `"}]}`
}

// metaBodyCases: huge, deep and invalid POST bodies of the metadata
// endpoint, whose limit is 64 KiB.
func metaBodyCases(id string) []abuseCase {
	md := "Metadata: true"
	huge := approval(id) + strings.Repeat(" ", 10<<20)
	return []abuseCase{
		{name: "huge body", req: post(abuseEvents, huge, md), status: 413, want: textTooLarge, closes: true},
		{name: "huge chunked body", req: chunkedPost(abuseEvents, fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(huge), huge), md),
			status: 413, want: textTooLarge, closes: true},
		{name: "huge body without Metadata", req: post(abuseEvents, huge), status: 400, want: textMetadata, closes: true},
		{name: "huge body with X-Forwarded-For", req: post(abuseEvents, huge, md, "X-Forwarded-For: 10.0.0.1"),
			status: 400, want: textForwarded, closes: true},
		{name: "deep arrays", req: post(abuseEvents, `{"StartRequests":`+strings.Repeat("[", 60000), md),
			status: 400, want: textNotJSON},
		{name: "deep objects", req: post(abuseEvents, strings.Repeat(`{"StartRequests":`, 3000)+"[]"+strings.Repeat("}", 3000), md),
			status: 400, want: "StartRequests must be a list"},
		{name: "invalid UTF-8 in the body", req: post(abuseEvents, approval("\xff\xfe"+id), md),
			status: 400, want: "is not an event"},
		{name: "NUL in the body", req: post(abuseEvents, approval(id)+"\x00", md), status: 400, want: textNotJSON},
	}
}

// metaFramingCases: request smuggling attempts and malformed HTTP, which
// net/http refuses (its text/plain 400) or frames one way only.
func metaFramingCases(id string) []abuseCase {
	md := "Metadata: true"
	chunk := "2\r\n{}\r\n0\r\n\r\n" // chunked: the body {}, which lacks StartRequests
	return []abuseCase{
		{name: "Content-Length and Transfer-Encoding", status: 400, want: "StartRequests is missing",
			req: chunkedPost(abuseEvents, chunk, md, "Content-Length: 40")},
		{name: "two Content-Lengths", req: post(abuseEvents, "{}", md, "Content-Length: 3"), status: 400},
		{name: "Content-Length with a space", req: metaReq("POST", abuseEvents, md, "Content-Length: 1 2") + "{}", status: 400},
		{name: "Content-Length with a sign", req: metaReq("POST", abuseEvents, md, "Content-Length: +2") + "{}", status: 400},
		{name: "negative Content-Length", req: metaReq("POST", abuseEvents, md, "Content-Length: -1") + "{}", status: 400},
		{name: "Content-Length beyond 64 bits", status: 400,
			req: metaReq("POST", abuseEvents, md, "Content-Length: 99999999999999999999999") + "{}"},
		{name: "chunk size not hex", req: chunkedPost(abuseEvents, "zz\r\n{}\r\n0\r\n\r\n", md), status: 400, want: textUnread},
		{name: "chunk size beyond 64 bits", req: chunkedPost(abuseEvents, "fffffffffffffffffffff\r\n{}\r\n0\r\n\r\n", md),
			status: 400, want: textUnread},
		{name: "negative chunk size", req: chunkedPost(abuseEvents, "-2\r\n{}\r\n0\r\n\r\n", md), status: 400, want: textUnread},
		{name: "bare LF after a chunk size", req: chunkedPost(abuseEvents, "2\n{}\r\n0\r\n\r\n", md), status: 400, want: textUnread},
		{name: "gzip then chunked", req: metaReq("POST", abuseEvents, md, "Transfer-Encoding: gzip, chunked") + chunk,
			status: 501, closes: true},
		{name: "two Transfer-Encodings", status: 501, closes: true,
			req: chunkedPost(abuseEvents, chunk, md, "Transfer-Encoding: chunked")},
		{name: "Transfer-Encoding with a space before the colon", status: 400, closes: true,
			req: metaReq("POST", abuseEvents, md, "Transfer-Encoding : chunked", "Content-Length: 2") + "{}"},
		// Faulty framing (RFC 9112 6.1): the metadata endpoint's fasthttp
		// refuses it before the handler; net/http, which served it before,
		// ignored Transfer-Encoding and found the body empty (not JSON). The
		// chunks must never be read as another request.
		{name: "HTTP/1.0 with Transfer-Encoding", status: 400, want: "400 Bad Request", closes: true,
			req: http10Chunked("POST "+abuseEvents, post(abuseEvents, approval(id), md), md)},
		{name: "obs-fold Transfer-Encoding", status: 400, want: "StartRequests is missing",
			req: metaReq("POST", abuseEvents, md, "Transfer-Encoding:", " chunked") + chunk},
		{name: "bare CR in a header", req: metaReq("GET", abuseEvents, "Foo: a\rMetadata: true"), status: 400, closes: true},
		{name: "NUL in a header", req: metaGet(abuseEvents, "Foo: a\x00b"), status: 400, closes: true},
		{name: "two Host headers", req: metaGet(abuseEvents, "Host: evil"), status: 400, closes: true},
		{name: "no Host header", req: head("GET "+abuseEvents+" HTTP/1.1", md), status: 400, closes: true},
		{name: "100 KB path", req: metaGet("/metadata/" + strings.Repeat("a", 100<<10)), status: 431, closes: true},
		{name: "100 KB header", req: metaGet(abuseEvents, "X-Big: "+strings.Repeat("a", 100<<10)), status: 431, closes: true},
		{name: "5000 headers", req: metaGet(abuseEvents, strings.Repeat("X-Many: a\r\n", 5000)+"X-Last: a"),
			status: 431, closes: true},
		{name: "HTTP/2.0 request line", req: head("GET "+abuseEvents+" HTTP/2.0", "Host: h", md), status: 505, closes: true},
		{name: "HTTP/0.9 request line", req: "GET " + abuseEvents + "\r\n\r\n", status: 400, closes: true},
		{name: "unknown expectation", req: metaGet(abuseEvents, "Expect: 200-ok"), status: 417, closes: true},
		{name: "gzip alone", req: metaReq("POST", abuseEvents, md, "Transfer-Encoding: gzip") + "0\r\n\r\n",
			status: 501, closes: true},
		{name: "identity with a Content-Length", req: metaReq("POST", abuseEvents, md, "Transfer-Encoding: identity",
			"Content-Length: 2") + "{}", status: 501, closes: true},
		{name: "a space in a header name", req: metaGet(abuseEvents, "Bad Header: x"), status: 400, closes: true},
		{name: "request lines ended by bare LF", req: strings.ReplaceAll(metaGet(abuseEvents), "\r\n", "\n"),
			status: 400, closes: true},
	}
}

// metaQueryCases: repeated and malformed parameters, invalid UTF-8 and odd
// paths.
func metaQueryCases() []abuseCase {
	return []abuseCase{
		{name: "api-version twice", req: metaGet(abuseEvents + "&api-version=2020-07-01"), status: 400, want: textDuplicate},
		{name: "api-version twice, one encoded", req: metaGet(abuseEvents + "&api%2dversion=2019-01-01"),
			status: 400, want: textDuplicate},
		{name: "semicolon is no separator", req: metaGet(abuseEvents + ";api-version=2019-01-01"), status: 400, want: textVersion},
		{name: "malformed escape", req: metaGet(abuseEvents + "&x=%zz"), status: 400, want: "Malformed query string"},
		{name: "invalid UTF-8 in the query", req: metaGet("/metadata/scheduledevents?api-version=\xff"),
			status: 400, want: textVersion},
		{name: "escaped invalid UTF-8 in the query", req: metaGet("/metadata/scheduledevents?api-version=2020-07-01%ff"),
			status: 400, want: textVersion},
		{name: "timeout_sec beyond 64 bits", req: metaGet(abuseEvents + "&wait_for_change=true&last_etag=1&timeout_sec=99999999999999999999"),
			status: 400, want: "timeout_sec"},
		{name: "invalid UTF-8 in the path", req: metaGet("/metadata/scheduledevents\xff?api-version=2020-07-01"),
			status: 404, want: textNotFound},
		{name: "escaped NUL in the path", req: metaGet("/metadata/scheduledevents%00?api-version=2020-07-01"),
			status: 404, want: textNotFound},
		{name: "dot segments", req: metaGet("/metadata/versions/../scheduledevents?api-version=2020-07-01"),
			status: 404, want: textNotFound},
		{name: "double slash", req: metaGet("//metadata/scheduledevents?api-version=2020-07-01"), status: 404, want: textNotFound},
		{name: "a fragment after the query", req: metaGet(abuseEvents + "#frag"), status: 400, want: textVersion},
		{name: "a fragment after the path", req: metaGet("/metadata/versions#x"), status: 404, want: textNotFound},
		// A target of a form its method does not take (RFC 9112 3.2): the
		// metadata listener refuses it; net/http passed it on (404).
		{name: "asterisk-form GET", req: metaGet("*"), status: 400, closes: true},
		{name: "authority-form GET", req: metaGet("evil.example:80"), status: 400, closes: true},
		{name: "a control character in the query", req: metaGet(abuseEvents + "&x=\x01"), status: 400, closes: true},
		{name: "DEL in the path", req: metaGet("/metadata/versions\x7f"), status: 400, closes: true},
	}
}

// metaMethodCases: methods other than GET and POST, CONNECT, and
// absolute-form targets (whose host is not checked, as Host is not).
func metaMethodCases() []abuseCase {
	md := "Metadata: true"
	var cases []abuseCase
	for _, m := range []string{"PUT", "DELETE", "PATCH", "TRACE", "OPTIONS", "HEAD", "FOO"} {
		c := abuseCase{name: m, req: metaReq(m, abuseEvents, md, "Content-Length: 0"), status: 405, want: textMethod}
		if m == "HEAD" {
			c.want = "" // no body
		}
		cases = append(cases, c)
	}
	return append(cases,
		abuseCase{name: "PUT instance", req: metaReq("PUT", "/metadata/instance?api-version=2021-02-01", md), status: 405, want: textMethod},
		abuseCase{name: "invalid method", req: metaReq("G@T", abuseEvents, md), status: 400, closes: true},
		abuseCase{name: "CONNECT", req: metaReq("CONNECT", "evil.example:443", md), status: 404, want: textNotFound},
		abuseCase{name: "CONNECT a path", req: metaReq("CONNECT", abuseEvents, md), status: 405, want: textMethod},
		abuseCase{name: "OPTIONS *", req: metaReq("OPTIONS", "*", md), status: 404, want: textNotFound},
		abuseCase{name: "absolute-form", req: metaGet("http://evil.example" + abuseEvents), status: 200, want: "DocumentIncarnation"},
		abuseCase{name: "absolute-form without Metadata", req: metaReq("GET", "http://evil.example"+abuseEvents),
			status: 400, want: textMetadata},
		abuseCase{name: "absolute-form approval", req: post("http://evil.example"+abuseEvents, "{}"), status: 400, want: textMetadata},
	)
}

// metaHeaderCases: X-Forwarded-For in every spelling, and odd Metadata
// values (SPEC.md 5).
func metaHeaderCases(id string) []abuseCase {
	xff := func(name string, hdr ...string) abuseCase {
		return abuseCase{name: name, req: metaGet(abuseEvents, hdr...), status: 400, want: textForwarded}
	}
	meta := func(name string, status int, hdr ...string) abuseCase {
		c := abuseCase{name: name, req: metaReq("GET", abuseEvents, hdr...), status: status, want: textMetadata}
		if status == 200 {
			c.want = "DocumentIncarnation"
		}
		return c
	}
	return []abuseCase{
		xff("X-Forwarded-For", "X-Forwarded-For: 10.0.0.1"),
		xff("x-forwarded-for", "x-forwarded-for: 10.0.0.1"),
		xff("X-FORWARDED-FOR", "X-FORWARDED-FOR: 10.0.0.1"),
		xff("X-Forwarded-For empty", "X-Forwarded-For:"),
		xff("X-Forwarded-For twice", "X-Forwarded-For: 10.0.0.1", "x-forwarded-for: 10.0.0.2, 10.0.0.3"),
		xff("X-Forwarded-For loopback", "X-Forwarded-For: 127.0.0.1"),
		{name: "X-Forwarded-For on the versions", req: metaGet("/metadata/versions", "X-Forwarded-For: 10.0.0.1"),
			status: 400, want: textForwarded},
		{name: "X-Forwarded-For before Metadata", req: metaReq("GET", abuseEvents, "X-Forwarded-For: 10.0.0.1"),
			status: 400, want: textForwarded},
		{name: "X-Forwarded-For on an approval", req: post(abuseEvents, approval(id), "Metadata: true",
			"X-Forwarded-For: 10.0.0.1"), status: 400, want: textForwarded},
		{name: "X-Forwarded-For with a space before the colon", req: metaGet(abuseEvents, "X-Forwarded-For : 10.0.0.1"),
			status: 400, closes: true},
		// SPEC.md 5 refuses X-Forwarded-For only.
		meta("Forwarded and X-Real-IP", 200, "Metadata: true", "Forwarded: for=10.0.0.1", "X-Real-IP: 10.0.0.1"),
		meta("no Metadata", 400),
		meta("Metadata true with spaces", 200, "Metadata:   true   "), // white space around a value is not part of it
		meta("Metadata TRUE", 200, "Metadata: TRUE"),
		meta("Metadata 1", 400, "Metadata: 1"),
		meta("Metadata empty", 400, "Metadata:"),
		meta("Metadata true twice", 400, "Metadata: true", "Metadata: true"),
		meta("Metadata true and false", 400, "Metadata: true", "metadata: false"),
		meta("Metadata true, true", 400, "Metadata: true, true"),
		meta("Metadata invalid UTF-8", 400, "Metadata: tr\xffue"),
		meta("Metadata obs-fold", 200, "Metadata:", " true"), // RFC 9112 5.2: the fold is a space
	}
}

// adminAuthCases: the admin API without its token, with a wrong one, with
// the token elsewhere than in the header, and odd Authorization values.
func adminAuthCases(token, id string) []abuseCase {
	get := func(name, target string, status int, want string, hdr ...string) abuseCase {
		return abuseCase{name: "admin " + name, admin: true, status: status, want: want,
			req: head(append([]string{"GET " + target + " HTTP/1.1", "Host: h"}, hdr...)...)}
	}
	approve := "/v1/events/" + id + "/approve"
	basic := base64.StdEncoding.EncodeToString([]byte("admin:" + token))
	return []abuseCase{
		get("no token", "/v1/events", 401, textNoToken),
		get("wrong token", "/v1/events", 401, textBadToken, "Authorization: Bearer "+strings.Repeat("0", len(token))),
		get("token prefix", "/v1/events", 401, textBadToken, "Authorization: Bearer "+token[:len(token)-1]),
		get("token and more", "/v1/events", 401, textBadToken, "Authorization: Bearer "+token+"0"),
		get("token in the query", "/v1/events?access_token="+token, 401, textNoToken),
		get("token as Basic", "/v1/events", 401, textNoToken, "Authorization: Basic "+basic),
		get("Bearer and a tab", "/v1/events", 401, textNoToken, "Authorization: Bearer\t"+token),
		get("Bearer without token", "/v1/events", 401, textNoToken, "Authorization: Bearer"),
		get("wrong token first", "/v1/events", 401, textBadToken, "Authorization: Bearer x", "Authorization: Bearer "+token),
		get("token in another header", "/v1/events", 401, textNoToken, "X-Token: "+token),
		// RFC 6750: one or more spaces after Bearer, which is case-insensitive.
		get("Bearer and two spaces", "/v1/events", 200, id, "Authorization: Bearer  "+token),
		get("lowercase bearer", "/v1/events", 200, id, "Authorization: bearer "+token),
		get("double slash", "//v1/events", 401, textNoToken),
		get("dot segments", "/x/../v1/events", 401, textNoToken),
		get("escaped v", "/%761/events", 401, textNoToken),
		get("escaped slash", "/v1%2fevents", 401, textNoToken),
		get("absolute-form", "http://evil.example/v1/events", 401, textNoToken),
		{name: "admin approve without token", admin: true, req: post(approve, "{}"), status: 401, want: textNoToken},
		{name: "admin approve with a wrong token", admin: true, req: post(approve, "{}", "Authorization: Bearer nope"),
			status: 401, want: textBadToken},
		{name: "admin DELETE without token", admin: true, req: head("DELETE /v1/vms/x HTTP/1.1", "Host: h"),
			status: 401, want: textNoToken},
		{name: "admin CONNECT", admin: true, req: head("CONNECT evil.example:443 HTTP/1.1", "Host: evil.example:443"),
			status: 404, want: "no such path"},
	}
}

// adminBodyCases: huge, deep, invalid and oddly framed bodies, long
// headers and wrong methods, with the token.
func adminBodyCases(token, id string) []abuseCase {
	auth := "Authorization: Bearer " + token
	approve := "/v1/events/" + id + "/approve"
	huge := "{}" + strings.Repeat(" ", 10<<20)
	c := func(name, req string, status int, want string) abuseCase {
		return abuseCase{name: "admin " + name, admin: true, req: req, status: status, want: want}
	}
	return []abuseCase{
		c("huge body", post(approve, huge, auth), 413, "larger than 1048576 bytes"),
		c("huge body without token", post(approve, huge), 401, textNoToken),
		c("huge chunked body", chunkedPost(approve, fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(huge), huge), auth),
			413, "larger than 1048576 bytes"),
		c("deep arrays", post("/v1/scopes", strings.Repeat("[", 900<<10), auth), 400, "exceeded max depth"),
		c("deep objects", post(approve, strings.Repeat(`{"a":`, 20000), auth), 400, "exceeded max depth"),
		c("invalid UTF-8 in a name", post("/v1/scopes", `{"name":"web\xff","kind":"AvailabilitySet"}`, auth), 400, ""),
		c("unknown field", post("/v1/scopes", `{"name":"web","bogus":1}`, auth), 400, `unknown field \"bogus\"`),
		c("text body", post(approve, "{}", auth, "Content-Type: text/plain"), 415, "must be JSON"),
		c("Content-Length and Transfer-Encoding", chunkedPost("/v1/scopes", "b\r\n{\"bogus\":1}\r\n0\r\n\r\n", auth,
			"Content-Length: 2"), 400, `unknown field \"bogus\"`),
		c("two Content-Lengths", post(approve, "{}", auth, "Content-Length: 3"), 400, ""),
		c("chunk size not hex", chunkedPost(approve, "zz\r\n{}\r\n0\r\n\r\n", auth), 400, "read request body"),
		{name: "admin HTTP/1.0 with Transfer-Encoding", admin: true, status: 400, want: "request body is empty", closes: true,
			req: http10Chunked("POST /v1/scopes", post(approve, "{}", auth), auth)},
		c("query parameter twice", head("GET /v1/history?limit=1&limit=2 HTTP/1.1", "Host: h", auth), 400, "given 2 times"),
		c("invalid UTF-8 in the path", head("GET /v1/vms/%ff HTTP/1.1", "Host: h", auth), 404, ""),
		c("100 KB path", head("GET /v1/"+strings.Repeat("a", 100<<10)+" HTTP/1.1", "Host: h", auth), 431, ""),
		c("100 KB header", head("GET /healthz HTTP/1.1", "Host: h", "X-Big: "+strings.Repeat("a", 100<<10)), 431, ""),
		c("PUT", head("PUT /v1/events HTTP/1.1", "Host: h", auth, "Content-Length: 0"), 405, "not allowed"),
		c("TRACE", head("TRACE /healthz HTTP/1.1", "Host: h"), 405, "not allowed"),
		c("unknown method", head("FOO /v1/events HTTP/1.1", "Host: h", auth), 405, "not allowed"),
	}
}

// check sends the case's request to its listener and checks the answer.
func (c abuseCase) check(t *testing.T, s *server) {
	addr := s.metaAddr
	if c.admin {
		addr = s.admAddr
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	written := make(chan struct{})
	go func() {
		defer close(written)
		_, _ = io.WriteString(conn, c.req) // the server may answer before it reads everything
	}()
	defer func() { conn.Close(); <-written }()
	br := bufio.NewReader(conn)
	method, _, _ := strings.Cut(c.req, " ")
	status, body, err := abuseRead(br, method)
	switch {
	case err != nil && isTimeout(err):
		t.Fatalf("no answer in 10 s, and the connection still open")
	case err != nil:
		t.Fatalf("connection cut without an answer (%v), want %d", err, c.status)
	case status != c.status:
		t.Fatalf("answered %d %q, want %d", status, excerpt(body), c.status)
	case !strings.Contains(body, c.want):
		t.Fatalf("answered %d %q, want a body with %q", status, excerpt(body), c.want)
	}
	if c.closes {
		checkClosed(t, conn, br)
	}
}

// abuseRead reads one answer to a request of method; it is an error if the
// connection ends first.
func abuseRead(br *bufio.Reader, method string) (int, string, error) {
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// checkClosed fails unless the server closes the connection at once,
// answering nothing more.
func checkClosed(t *testing.T, conn net.Conn, br *bufio.Reader) {
	t.Helper()
	if err := conn.SetReadDeadline(time.Now().Add(3 * time.Second)); err != nil {
		t.Fatal(err)
	}
	more, err := br.ReadString('\n')
	switch {
	case err == nil || more != "":
		t.Fatalf("the connection goes on after the answer: %q", more)
	case isTimeout(err):
		t.Fatal("the connection stays open after the answer")
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// excerpt shortens a body for a message.
func excerpt(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// abuseToken reads the server's admin token.
func abuseToken(t *testing.T, s *server) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.dataDir, "admin.token"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// abuseState is what the hostile requests must not change.
type abuseState struct {
	Events, History []*forewarn.Event
	Scopes          []*forewarn.Scope
	VMs             []*forewarn.VM
	Document        string
}

// abuseSnapshot reads the state through both APIs. A scope's LastSeen is
// left out: every GET that passes moves it.
func abuseSnapshot(t *testing.T, s *server) abuseState {
	t.Helper()
	ctx := context.Background()
	var st abuseState
	var err error
	if st.Events, _, err = s.admin.Events(ctx, forewarn.EventQuery{}); err != nil {
		t.Fatal(err)
	}
	if st.History, err = s.admin.History(ctx, 100); err != nil {
		t.Fatal(err)
	}
	if st.Scopes, err = s.admin.Scopes(ctx); err != nil {
		t.Fatal(err)
	}
	for _, sc := range st.Scopes {
		sc.LastSeen = time.Time{}
	}
	if st.VMs, _, err = s.admin.VMs(ctx, forewarn.VMQuery{}); err != nil {
		t.Fatal(err)
	}
	_, st.Document = s.get("api-version=2020-07-01")
	return st
}

func abuseJSON(st abuseState) string {
	b, _ := json.Marshal(st)
	return string(b)
}

// abuseServes checks that a normal GET of each listener is answered.
func abuseServes(t *testing.T, s *server) {
	t.Helper()
	if resp, _ := s.get("api-version=2020-07-01"); resp.StatusCode != http.StatusOK {
		t.Fatalf("GET of the document: %d", resp.StatusCode)
	}
	if _, _, err := s.admin.Events(context.Background(), forewarn.EventQuery{}); err != nil {
		t.Fatal(err)
	}
}
