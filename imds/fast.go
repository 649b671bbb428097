package imds

import (
	"bytes"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"unsafe"

	"github.com/valyala/fasthttp"
	"golang.org/x/net/http/httpguts"
)

// fastCall is what a request carried by fasthttp needs besides its
// RequestCtx, recycled through Server.fastCalls.
type fastCall struct {
	in        incoming
	noneMatch []string
	gone      goneContext
}

// ServeFastHTTP answers a request to the metadata endpoint carried by
// fasthttp, as ServeHTTP answers it carried by net/http (see FastServer).
func (s *Server) ServeFastHTTP(ctx *fasthttp.RequestCtx) {
	s.serveFast(ctx, nil)
	if ctx.Request.Header.ContentLength() != 0 {
		s.bodyHeaders.Delete(&ctx.Request.Header)
	}
}

// serveFast answers ctx; bodyErr, if not nil, is the answer to its body,
// which fasthttp could not read.
func (s *Server) serveFast(ctx *fasthttp.RequestCtx, bodyErr *apiError) {
	if !ctx.Request.Header.IsHTTP11() {
		// As net/http's server does with closeHTTP10 (cmd/forewarn).
		ctx.SetConnectionClose()
	}
	fc, _ := s.fastCalls.Get().(*fastCall)
	if fc == nil {
		fc = new(fastCall)
	}
	defer s.releaseFastCall(fc)
	in := &fc.in
	if status := readFast(in, ctx, fc); status != 0 {
		plainError(ctx, status)
		return
	}
	in.fastBodyErr = bodyErr
	var out reply
	x := s.answer(in, &out)
	fc.gone.stop()
	writeFast(ctx, &out)
	s.finish(&x, out.status)
}

// releaseFastCall recycles fc once its request is answered, holding
// nothing of the request.
func (s *Server) releaseFastCall(fc *fastCall) {
	fc.in = incoming{}
	clear(fc.noneMatch)
	fc.gone.reset(nil)
	s.fastCalls.Put(fc)
}

// readFast fills in the request fasthttp gives. It returns a status other
// than 0 for a request net/http's server refuses and fasthttp reads: a
// version other than HTTP/1.x (505), a transfer coding other than chunked
// (501), a control character in the target, a malformed escape in the path
// or a field name that is not a token (400), an expectation other than
// 100-continue (417).
func readFast(in *incoming, ctx *fasthttp.RequestCtx, fc *fastCall) int {
	h := &ctx.Request.Header
	if !bytes.HasPrefix(h.Protocol(), []byte("HTTP/1.")) {
		return http.StatusHTTPVersionNotSupported
	}
	if unsupportedCoding(h.RawHeaders()) {
		return http.StatusNotImplemented
	}
	path, rawQuery, ok := requestTarget(ctx)
	if !ok {
		return http.StatusBadRequest
	}
	fc.gone.reset(ctx.Conn())
	*in = incoming{
		method:   bytesString(ctx.Method()),
		path:     path,
		rawQuery: rawQuery,
		addr:     fastAddr(ctx.RemoteAddr()),
		ctx:      &fc.gone,
		fast:     ctx,
	}
	// One pass over the fields, whose names fasthttp has put in canonical
	// form.
	fc.noneMatch = fc.noneMatch[:0]
	for k, v := range h.All() {
		switch string(k) {
		case "X-Forwarded-For":
			in.forwarded = true
		case "Metadata":
			if in.metadataFields == 0 {
				in.metadata = bytesString(v)
			}
			in.metadataFields++
		case "If-None-Match":
			fc.noneMatch = append(fc.noneMatch, bytesString(v))
		case "Expect":
			if !bytes.EqualFold(v, []byte("100-continue")) {
				return http.StatusExpectationFailed
			}
		default:
			if !httpguts.ValidHeaderFieldName(bytesString(k)) {
				return http.StatusBadRequest
			}
		}
	}
	in.ifNoneMatch = fc.noneMatch
	return 0
}

// requestTarget is the path, unescaped, and the raw query of the request
// target as net/http reads them: from the bytes as sent, a '#' and what
// follows it included (fasthttp drops a fragment), and from fasthttp's
// parse for the absolute form, whose scheme and host it strips. ok is
// false for a control character in the target or a malformed escape in
// the path.
func requestTarget(ctx *fasthttp.RequestCtx) (path, rawQuery string, ok bool) {
	raw := ctx.Request.Header.RequestURI()
	if hasControl(raw) {
		return "", "", false // which net/http's URL parser refuses
	}
	var p []byte
	switch {
	case bytes.HasPrefix(raw, []byte("http://")), bytes.HasPrefix(raw, []byte("https://")):
		uri := ctx.URI()
		p, rawQuery = uri.PathOriginal(), bytesString(uri.QueryString())
	default: // origin form, or "*" and authority forms, which no route has
		p = raw
		if i := bytes.IndexByte(raw, '?'); i >= 0 {
			p, rawQuery = raw[:i], bytesString(raw[i+1:])
		}
	}
	path = bytesString(p)
	if bytes.IndexByte(p, '%') >= 0 {
		unescaped, err := url.PathUnescape(path)
		if err != nil {
			return "", "", false
		}
		path = unescaped
	}
	return path, rawQuery, true
}

// hasControl reports whether b holds an ASCII control character.
func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c == 0x7f {
			return true
		}
	}
	return false
}

// unsupportedCoding reports whether a request's header block, as sent,
// has a Transfer-Encoding other than chunked, which net/http refuses with
// 501. fasthttp refuses most itself, but takes "identity" as none at all.
func unsupportedCoding(raw []byte) bool {
	if !bytes.Contains(raw, []byte("ransfer-")) && !bytes.Contains(raw, []byte("RANSFER-")) {
		return false // the common case, at the cost of two scans
	}
	lines := bytes.Split(raw, []byte("\n"))
	for i, line := range lines {
		name, value, found := bytes.Cut(line, []byte(":"))
		if !found || !bytes.EqualFold(bytes.TrimSpace(name), []byte("Transfer-Encoding")) {
			continue
		}
		value = bytes.TrimSpace(value)
		// A value folded onto the lines that follow (obs-fold), as
		// net/http reads it.
		for _, next := range lines[i+1:] {
			if len(next) == 0 || next[0] != ' ' && next[0] != '\t' {
				break
			}
			value = append(append(value[:len(value):len(value)], ' '), bytes.TrimSpace(next)...)
		}
		if !bytes.EqualFold(bytes.TrimSpace(value), []byte("chunked")) {
			return true
		}
	}
	return false
}

// fastAddr is the normalized address of a connection's remote end.
func fastAddr(a net.Addr) netip.Addr {
	if tcp, ok := a.(*net.TCPAddr); ok {
		return normalizeAddr(tcp.AddrPort().Addr())
	}
	return remoteAddr(a.String())
}

// Header names and values of writeFast, as fasthttp takes them.
var (
	fastLongPollKey   = []byte(longPollHeader)
	fastLongPollValue = []byte("true")
	fastETagKey       = []byte("ETag")
)

// writeFast writes out with fasthttp.
func writeFast(ctx *fasthttp.RequestCtx, out *reply) {
	if out.status == 0 {
		// The client has gone (or half-closed its side): no answer, not
		// the empty 200 fasthttp would send.
		_ = ctx.Conn().Close()
		return
	}
	ctx.SetStatusCode(out.status)
	h := &ctx.Response.Header
	if out.longPoll {
		h.SetCanonical(fastLongPollKey, fastLongPollValue)
	}
	if out.allow != "" {
		h.Set("Allow", out.allow)
	}
	if out.retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(out.retryAfter))
	}
	if out.etag != nil {
		h.SetCanonical(fastETagKey, stringBytes(out.etag[0]))
	}
	if out.contentType != "" {
		h.SetContentType(out.contentType)
		ctx.Response.SetBodyRaw(out.body)
	}
}

// bytesString is b as a string without a copy, for the fields of a
// request that live no longer than the request: fasthttp reuses b's
// memory for the next one.
func bytesString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// stringBytes is s as bytes without a copy, for fasthttp to copy.
func stringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
