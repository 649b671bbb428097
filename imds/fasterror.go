package imds

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"
)

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
// ErrorHandler), and closes the connection after the answer (lingerClose).
// A request whose body it could not read is answered by the handler, after
// the checks that come first, as net/http's are: 413 for a body over the
// limit, 400 for one cut short or badly chunked. A connection that sent
// nothing before its header timeout is cut without an answer; a malformed
// or unfinished request gets the plain-text error net/http's server would
// answer (a request target of a form its method does not take, such as
// "GET *", too: net/http passed those on, and they got the 404 of a path no
// route has).
func (s *Server) ServeFastError(ctx *fasthttp.RequestCtx, err error) {
	defer lingerClose(ctx)
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
	case errors.As(err, &netErr) && netErr.Timeout() && err == netErr:
		// Nothing read (fasthttp passes the read's own error on): cut.
		_ = ctx.Conn().Close()
	default: // malformed, or timed out part way
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

// lingerWait bounds how long lingerClose waits for the client to read its
// answer, as net/http's server waits (rstAvoidanceDelay).
const lingerWait = 500 * time.Millisecond

// lingerClose writes the answer at once, closes the connection's sending
// side, and reads what the client still sends for up to lingerWait before
// fasthttp closes the connection. Closed with unread input, as when a
// client is still sending a header block or body too large, a socket
// resets, and the reset can destroy the answer before the client reads it.
// fasthttp's own write of the answer then fails, unseen.
func lingerClose(ctx *fasthttp.RequestCtx) {
	conn := ctx.Conn()
	tcp, ok := conn.(interface{ CloseWrite() error })
	if !ok || !ctx.Response.ConnectionClose() {
		return
	}
	bw := bufio.NewWriter(conn)
	if err := ctx.Response.Write(bw); err != nil || bw.Flush() != nil {
		return
	}
	if tcp.CloseWrite() != nil || conn.SetReadDeadline(time.Now().Add(lingerWait)) != nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(conn, maxLinger))
}

// maxLinger bounds what lingerClose reads.
const maxLinger = 1 << 20
