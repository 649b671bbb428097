package imds

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// headerTarget is a request FuzzHeaders sends, whatever its headers: one
// that succeeds when the headers are right.
type headerTarget struct {
	method, target, body string
	// ok is the body of the 200 answer; "" for the document, whose body
	// checkDocument checks.
	ok string
}

var headerTargets = []headerTarget{
	{method: http.MethodGet, target: eventsURL("2020-07-01")},
	{method: http.MethodPost, target: eventsURL("2020-07-01"), body: approveOneBody, ok: "{}"},
	{method: http.MethodGet, target: pathVersions, ok: string(versionsBody)},
	{method: http.MethodGet, target: "/metadata/instance/compute/name?api-version=2021-02-01&format=text", ok: fuzzVM},
}

// FuzzHeaders sends arbitrary header lines, as bytes on a connection,
// through the HTTP engine's own server (-engine) to the endpoint, for each
// of headerTargets. Either the engine refuses the request itself (400 or
// 431),
// or the endpoint, judging by the headers as the engine gave them to it,
// answers:
//   - with any X-Forwarded-For header, 400 with SPEC.md 5's text, never a
//     success;
//   - else without a Metadata value "true" (any case), 400 with that text;
//     with only such values, a success (with both, either);
//   - a 304 only to a GET of the document, only when If-None-Match holds
//     "*" or the ETag, and whenever a well-formed If-None-Match matches;
//   - no header of its answer but its own (nothing echoed), no 5xx.
func FuzzHeaders(f *testing.F) {
	for _, seed := range []struct {
		target uint8
		lines  string
	}{
		{0, "Metadata: true"},
		{0, "metadata: TRUE\nIf-None-Match: \"4\""},
		{0, "Metadata: true\nIf-None-Match: W/\"3\", W/\"4\""},
		{0, "Metadata: true\nIf-None-Match: \"3\"\nIf-None-Match: \"4\""},
		{0, "Metadata: true\nIf-None-Match: 4"},
		{0, "Metadata: true\nIf-None-Match: *"},
		{0, "Metadata: true\nX-Forwarded-For: 10.0.0.1"},
		{0, "x-forwarded-for:\nMetadata: true"},
		{1, "Metadata: true\nIf-None-Match: *\nUser-Agent: curl/8.5.0"},
		{1, "Metadata: true\nX-Forwarded-For: 10.0.0.1, 10.0.0.2"},
		{2, "Metadata: true\nMetadata: false"},
		{2, "Metadata: false"},
		{3, "Metadata: true\nForwarded: for=10.0.0.1\nX-Real-IP: 10.0.0.1"},
		{3, "Metadata: true\nFoo: bar\n X-Forwarded-For: 10.0.0.1"},
		{3, "Metadata : true"},
	} {
		f.Add(seed.target, seed.lines)
	}
	l := serveOnPipes(f, fuzzServer(f))
	f.Fuzz(func(t *testing.T, target uint8, lines string) {
		tg := headerTargets[int(target)%len(headerTargets)]
		a := l.send(t, tg, headerBlock(lines))
		checkHeaderAnswer(t, tg, a)
	})
}

// framingHeaders are left out of FuzzHeaders' input: they say where the
// request ends, which the fuzzer is not to change (a Content-Length larger
// than the body would hold the connection; the abuse tests try those).
var framingHeaders = map[string]bool{"content-length": true, "transfer-encoding": true,
	"connection": true, "expect": true}

// headerBlock turns fuzzer input into header lines, each ended by CRLF:
// no empty line (which would end the headers) and no framing header.
func headerBlock(lines string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(lines, "\n") {
		line = strings.TrimSuffix(line, "\r")
		name, _, _ := strings.Cut(line, ":")
		if line == "" || framingHeaders[strings.ToLower(strings.TrimSpace(name))] {
			continue
		}
		b.WriteString(line + "\r\n")
	}
	return b.String()
}

// headerAnswer is what FuzzHeaders got back.
type headerAnswer struct {
	status int
	header http.Header
	body   []byte
	// seen is the request's header as the endpoint got it; nil when
	// net/http refused the request before.
	seen http.Header
}

// pipeListener is a net.Listener whose connections are in-memory pipes
// from a caller at 192.0.2.1, so that FuzzHeaders runs net/http's server
// without a socket per input.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
	// seen passes the header of each request the endpoint gets to send.
	seen chan http.Header
}

// serveOnPipes serves s on a pipeListener until the fuzz test ends, with
// the engine the -engine flag names.
func serveOnPipes(f *testing.F, s *Server) *pipeListener {
	l := &pipeListener{conns: make(chan net.Conn), done: make(chan struct{}), seen: make(chan http.Header, 1)}
	if *engine == "fasthttp" {
		srv := s.FastServer(testLimits, slog.New(slog.DiscardHandler))
		srv.Handler = func(ctx *fasthttp.RequestCtx) {
			seen := fastHeader(&ctx.Request.Header)
			s.ServeFastHTTP(ctx)
			if ctx.Response.StatusCode() >= 400 && string(ctx.Response.Header.ContentType()) == contentTypeText {
				seen = nil // refused as net/http's server refuses it (readFast), not by the endpoint
			}
			l.seen <- seen
		}
		go func() { _ = srv.Serve(l) }()
		f.Cleanup(func() { _ = srv.Shutdown() })
		return l
	}
	h := http.Handler(s)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			l.seen <- r.Header.Clone()
			h.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	go func() { _ = srv.Serve(l) }()
	f.Cleanup(func() { _ = srv.Close() })
	return l
}

// fastHeader is a request's header as fasthttp gives it to the endpoint.
func fastHeader(fh *fasthttp.RequestHeader) http.Header {
	h := http.Header{}
	for k, v := range fh.All() {
		h.Add(string(k), string(v))
	}
	return h
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return fuzzLocal }

var (
	fuzzLocal  = &net.TCPAddr{IP: net.IPv4(169, 254, 169, 254), Port: 80}
	fuzzRemote = &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 40000}
)

// pipeConn is the server's end of a pipe, from fuzzRemote.
type pipeConn struct{ net.Conn }

func (pipeConn) RemoteAddr() net.Addr { return fuzzRemote }
func (pipeConn) LocalAddr() net.Addr  { return fuzzLocal }

// send writes tg's request with the header lines hdr, before the
// request's own, and reads the answer.
func (l *pipeListener) send(t *testing.T, tg headerTarget, hdr string) headerAnswer {
	t.Helper()
	client, server := net.Pipe()
	defer client.Close()
	if err := client.SetDeadline(time.Now().Add(20 * time.Second)); err != nil {
		t.Fatal(err)
	}
	select { // a header left by an earlier input would be taken for this one's
	case <-l.seen:
	default:
	}
	l.conns <- pipeConn{server}
	raw := fmt.Sprintf("%s %s HTTP/1.1\r\n%sHost: 169.254.169.254\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
		tg.method, tg.target, hdr, len(tg.body), tg.body)
	written := make(chan struct{})
	go func() {
		defer close(written)
		_, _ = io.WriteString(client, raw) // net/http may stop reading early
	}()
	defer func() { client.Close(); <-written }()
	resp, err := http.ReadResponse(bufio.NewReader(client), nil)
	if err != nil {
		t.Fatalf("%s %s with %q: no answer: %v", tg.method, tg.target, hdr, err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s with %q: reading the body: %v", tg.method, tg.target, hdr, err)
	}
	a := headerAnswer{status: resp.StatusCode, header: resp.Header, body: body}
	select {
	case a.seen = <-l.seen:
	default:
	}
	return a
}

// allowedAnswerHeaders are the headers the endpoint and net/http put on
// these answers; any other would come from the request.
var allowedAnswerHeaders = map[string]bool{"Content-Type": true, "Content-Length": true, "Date": true,
	"Connection": true, headerETag: true, longPollHeader: true}

// checkHeaderAnswer checks one answer of FuzzHeaders (see there).
func checkHeaderAnswer(t *testing.T, tg headerTarget, a headerAnswer) {
	t.Helper()
	what := fmt.Sprintf("%s %s with %q", tg.method, tg.target, a.seen)
	if a.seen == nil {
		if a.status != http.StatusBadRequest && a.status != http.StatusRequestHeaderFieldsTooLarge {
			t.Fatalf("%s: net/http answered %d: %s", what, a.status, a.body)
		}
		return
	}
	for name := range a.header {
		if !allowedAnswerHeaders[name] {
			t.Fatalf("%s: answer has header %s: %q", what, name, a.header[name])
		}
	}
	switch want := refusal(a.seen); {
	case want != "":
		if a.status != http.StatusBadRequest || errorText(t, a.body, what) != want {
			t.Fatalf("%s: answered %d %s, want 400 %q", what, a.status, a.body, want)
		}
	case a.status == http.StatusBadRequest:
		msg := errorText(t, a.body, what)
		if _, forwarded := a.seen["X-Forwarded-For"]; forwarded || msg != textMetadataHeader {
			t.Fatalf("%s: refused with %q", what, msg)
		}
	case a.status == http.StatusNotModified:
		checkNotModified(t, tg, a, what)
	case a.status == http.StatusOK:
		checkHeaderOK(t, tg, a, what)
	default:
		t.Fatalf("%s: answered %d %s", what, a.status, a.body)
	}
}

// refusal is the error text a request with these headers must get, ""
// when it may pass: with both a true and another Metadata value, the
// endpoint may take either.
func refusal(h http.Header) string {
	if _, ok := h["X-Forwarded-For"]; ok {
		return textForwarded
	}
	for _, v := range h["Metadata"] {
		if strings.EqualFold(v, "true") {
			return ""
		}
	}
	return textMetadataHeader
}

// checkHeaderOK checks a 200: the body of the target, and for the document
// an ETag of its incarnation that If-None-Match, if well-formed, does not
// match.
func checkHeaderOK(t *testing.T, tg headerTarget, a headerAnswer, what string) {
	t.Helper()
	if tg.ok != "" {
		if string(a.body) != tg.ok {
			t.Fatalf("%s: 200 %q, want %q", what, a.body, tg.ok)
		}
		return
	}
	tag := checkDocument(t, a, what)
	if match, ok := inmMatches(a.seen["If-None-Match"], tag); ok && match {
		t.Fatalf("%s: 200 though If-None-Match matches ETag %q", what, a.header.Get("ETag"))
	}
}

// checkDocument fails unless the body is a document whose incarnation the
// ETag carries; it returns the ETag's opaque part.
func checkDocument(t *testing.T, a headerAnswer, what string) string {
	t.Helper()
	var doc struct{ DocumentIncarnation *int64 }
	if err := json.Unmarshal(a.body, &doc); err != nil || doc.DocumentIncarnation == nil {
		t.Fatalf("%s: 200 %q is not a document: %v", what, a.body, err)
	}
	tag := fmt.Sprint(*doc.DocumentIncarnation)
	if etag := a.header.Get("ETag"); etag != `"`+tag+`"` {
		t.Fatalf("%s: ETag %q for incarnation %s", what, etag, tag)
	}
	return tag
}

// checkNotModified checks a 304: only to a GET of the document, without a
// body, and only for an If-None-Match that holds "*" or the ETag.
func checkNotModified(t *testing.T, tg headerTarget, a headerAnswer, what string) {
	t.Helper()
	etag := a.header.Get("ETag")
	if tg.ok != "" || len(a.body) != 0 || len(etag) < 3 {
		t.Fatalf("%s: 304 with ETag %q and body %q", what, etag, a.body)
	}
	fields := strings.Join(a.seen["If-None-Match"], ",")
	if !strings.Contains(fields, "*") && !strings.Contains(fields, etag) {
		t.Fatalf("%s: 304 though If-None-Match %q holds neither * nor %s", what, fields, etag)
	}
	if match, ok := inmMatches(a.seen["If-None-Match"], etag[1:len(etag)-1]); ok && !match {
		t.Fatalf("%s: 304 though If-None-Match does not match %s", what, etag)
	}
}

// inmMatches reads If-None-Match field values by the grammar of RFC 9110
// 13.1.2 ("*", or a list of entity tags, empty members allowed): ok is
// false when they do not follow it; match is whether one is "*" or an
// entity tag, weak or strong, with the opaque part tag.
func inmMatches(fields []string, tag string) (match, ok bool) {
	if len(fields) == 1 && strings.Trim(fields[0], " \t") == "*" {
		return true, true
	}
	for _, f := range fields {
		for f = strings.TrimLeft(f, " \t"); f != ""; f = strings.TrimLeft(f, " \t") {
			if f[0] == ',' {
				f = f[1:]
				continue
			}
			f = strings.TrimPrefix(f, "W/")
			end := strings.IndexByte(f[min(1, len(f)):], '"')
			if f == "" || f[0] != '"' || end < 0 {
				return false, false
			}
			opaque := f[1 : 1+end]
			if strings.ContainsFunc(opaque, func(r rune) bool { return r < 0x21 || r == 0x7f }) {
				return false, false
			}
			match = match || opaque == tag
			f = strings.TrimLeft(f[end+2:], " \t")
			if f != "" && f[0] != ',' {
				return false, false
			}
		}
	}
	return match, true
}
