package imds

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/valyala/fasthttp"
)

// incoming is a request as the handler sees it, whichever engine carries
// it: net/http (ServeHTTP) or fasthttp (ServeFastHTTP). Either r and w
// are set, or fast is.
type incoming struct {
	method   string
	path     string // unescaped, as net/http's URL.Path
	rawQuery string
	// addr is the connection's source address, normalized, or the zero
	// Addr if the engine gave none.
	addr netip.Addr
	// forwarded reports an X-Forwarded-For field; metadata is the value
	// of the Metadata field when there is exactly one (metadataFields).
	forwarded      bool
	metadata       string
	metadataFields int
	// ifNoneMatch holds the If-None-Match field values.
	ifNoneMatch []string
	// ctx ends when the client goes away.
	ctx context.Context
	// now is when the handler began to answer (or ended a chaos delay),
	// if it read the clock for the metrics or the rate limit.
	now time.Time

	r    *http.Request
	w    http.ResponseWriter
	fast *fasthttp.RequestCtx
	// fastBodyErr is the answer to a body fasthttp could not read.
	fastBodyErr *apiError
}

// remote is the connection's source as the engine gives it, for messages.
func (in *incoming) remote() string {
	if in.r != nil {
		return in.r.RemoteAddr
	}
	return in.fast.RemoteAddr().String()
}

// body reads the request body, up to maxBody bytes.
func (in *incoming) body() ([]byte, *apiError) {
	if in.fast != nil {
		if in.fastBodyErr != nil {
			return nil, in.fastBodyErr
		}
		return in.fast.PostBody(), nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(in.w, in.r.Body, maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, errTooLarge
		}
		return nil, errUnreadable
	}
	return body, nil
}

// readAhead reads the body ahead before a request is held, so that a
// client that goes away is noticed (see readAhead). fasthttp has read it
// already.
func (in *incoming) readAhead() {
	if in.r != nil {
		readAhead(in.r)
	}
}

// The answers to a body over maxBody, and to one that could not be read.
var (
	errTooLarge = &apiError{status: http.StatusRequestEntityTooLarge,
		msg: fmt.Sprintf("Request body too large. The limit is %d bytes", maxBody)}
	errUnreadable = badRequest("Bad request. The body could not be read")
)

// readHTTP fills in the request net/http gives.
func readHTTP(in *incoming, w http.ResponseWriter, r *http.Request) {
	*in = incoming{
		method:      r.Method,
		path:        r.URL.Path,
		rawQuery:    r.URL.RawQuery,
		addr:        remoteAddr(r.RemoteAddr),
		ifNoneMatch: r.Header["If-None-Match"],
		ctx:         r.Context(),
		r:           r,
		w:           w,
	}
	_, in.forwarded = r.Header["X-Forwarded-For"]
	if v := r.Header["Metadata"]; len(v) > 0 {
		in.metadata, in.metadataFields = v[0], len(v)
	}
}

// remoteAddr is a connection's source address, normalized, or the zero
// Addr if remote is not an address with or without a port.
func remoteAddr(remote string) netip.Addr {
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		// A bare address, as some listeners and tests give.
		a, err := netip.ParseAddr(strings.Trim(remote, "[]"))
		if err != nil {
			return netip.Addr{}
		}
		return normalizeAddr(a)
	}
	return normalizeAddr(ap.Addr())
}
