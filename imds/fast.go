package imds

import (
	"bytes"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/valyala/fasthttp"
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
	in := &fc.in
	if status := readFast(in, ctx, fc); status != 0 {
		*in = incoming{}
		fc.gone.reset(nil)
		s.fastCalls.Put(fc)
		plainError(ctx, status)
		return
	}
	in.fastBodyErr = bodyErr
	var out reply
	x := s.answer(in, &out)
	fc.gone.stop()
	writeFast(ctx, &out)
	s.finish(&x, out.status)
	*in = incoming{}
	clear(fc.noneMatch)
	fc.gone.reset(nil)
	s.fastCalls.Put(fc)
}

// fastHeaderReceived keeps a copy of the header of a request with a body
// until the request is answered: fasthttp reads the body before it calls
// the handler, and forgets the header if it cannot, which ServeFastError
// then needs.
func (s *Server) fastHeaderReceived(h *fasthttp.RequestHeader) {
	if n := h.ContentLength(); n == 0 || n == -2 { // -2: no body
		return
	}
	saved := new(fasthttp.RequestHeader)
	h.CopyTo(saved)
	s.bodyHeaders.Store(h, saved)
}

// ServeFastError answers a request fasthttp could not read (its
// ErrorHandler). A request whose body it could not read is answered by
// the handler, after the checks that come first, as net/http's are: 413
// for a body over the limit, 400 for one cut short or badly chunked. A
// request whose header it could not read is cut without an answer if it
// timed out, and otherwise gets the plain-text error net/http's server
// would answer.
func (s *Server) ServeFastError(ctx *fasthttp.RequestCtx, err error) {
	if saved, ok := s.bodyHeaders.LoadAndDelete(&ctx.Request.Header); ok {
		saved.(*fasthttp.RequestHeader).CopyTo(&ctx.Request.Header)
		bodyErr := errUnreadable
		if errors.Is(err, fasthttp.ErrBodyTooLarge) {
			bodyErr = errTooLarge
		}
		s.serveFast(ctx, bodyErr)
		ctx.SetConnectionClose()
		return
	}
	var small *fasthttp.ErrSmallBuffer
	var netErr net.Error
	switch {
	case errors.As(err, &small):
		plainError(ctx, http.StatusRequestHeaderFieldsTooLarge)
	case errors.Is(err, fasthttp.ErrUnsupportedTransferEncoding):
		// fasthttp's one use of this error in reading a request: an
		// HTTP/1.0 request with Transfer-Encoding, whose framing is faulty
		// (RFC 9112 6.1). net/http ignored the field and answered 400.
		plainError(ctx, http.StatusBadRequest)
	case strings.Contains(err.Error(), "transfer-encoding"):
		// Two Transfer-Encoding fields, or a coding other than chunked:
		// fasthttp has no error value for these. e2e's abuse rows pin it.
		plainError(ctx, http.StatusNotImplemented)
	case errors.As(err, &netErr) && netErr.Timeout():
		_ = ctx.Conn().Close()
	default:
		plainError(ctx, http.StatusBadRequest)
	}
}

// plainError answers status as net/http's server answers a request it
// cannot read, and closes the connection.
func plainError(ctx *fasthttp.RequestCtx, status int) {
	ctx.Response.Reset()
	ctx.SetStatusCode(status)
	ctx.SetContentType(contentTypeText)
	ctx.SetBodyString(strconv.Itoa(status) + " " + http.StatusText(status))
	ctx.SetConnectionClose()
}

// readFast fills in the request fasthttp gives. It returns a status other
// than 0 for a request net/http's server refuses and fasthttp reads: a
// version other than HTTP/1.x (505), a path with a malformed escape (400),
// an expectation other than 100-continue (417).
func readFast(in *incoming, ctx *fasthttp.RequestCtx, fc *fastCall) int {
	h := &ctx.Request.Header
	if !bytes.HasPrefix(h.Protocol(), []byte("HTTP/1.")) {
		return http.StatusHTTPVersionNotSupported
	}
	uri := ctx.URI()
	path := bytesString(uri.PathOriginal())
	if bytes.IndexByte(uri.PathOriginal(), '%') >= 0 {
		p, err := url.PathUnescape(path)
		if err != nil {
			return http.StatusBadRequest
		}
		path = p
	}
	fc.gone.reset(ctx.Conn())
	*in = incoming{
		method:   bytesString(ctx.Method()),
		path:     path,
		rawQuery: bytesString(uri.QueryString()),
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
		}
	}
	in.ifNoneMatch = fc.noneMatch
	return 0
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
		ctx.SetConnectionClose() // the client has gone
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

// Limits are the timeouts and size limits of a listener (see FastServer).
type Limits struct {
	// HeaderTimeout bounds the reading of a request's line and headers,
	// counted from the connection's accept or, on a kept-alive connection,
	// from the request's first byte.
	HeaderTimeout time.Duration
	// BodyTimeout bounds the reading of the body, counted from the end of
	// the headers.
	BodyTimeout time.Duration
	// IdleTimeout closes a kept-alive connection no request has used for
	// this long.
	IdleTimeout time.Duration
	// MaxHeaderBytes caps the request line and headers; beyond it the
	// answer is 431.
	MaxHeaderBytes int
}

// FastServer returns a fasthttp server of the endpoint with the limits l.
// It keeps no buffers for a connection between its requests
// (ReduceMemoryUsage), since a fleet's connections are idle all but a
// moment a second; it adds no Server or default Content-Type header, and
// logs what fasthttp logs (malformed requests, mostly) to log at Debug.
func (s *Server) FastServer(l Limits, log *slog.Logger) *fasthttp.Server {
	return &fasthttp.Server{
		Handler:      s.ServeFastHTTP,
		ErrorHandler: s.ServeFastError,
		HeaderReceived: func(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
			s.fastHeaderReceived(h)
			return fasthttp.RequestConfig{ReadTimeout: l.BodyTimeout}
		},
		ReadTimeout:                  l.HeaderTimeout,
		IdleTimeout:                  l.IdleTimeout,
		ReadBufferSize:               l.MaxHeaderBytes,
		MaxRequestBodySize:           maxBody,
		DisablePreParseMultipartForm: true,
		NoDefaultServerHeader:        true,
		NoDefaultContentType:         true,
		ReduceMemoryUsage:            true,
		CloseOnShutdown:              true,
		Logger:                       slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
}
