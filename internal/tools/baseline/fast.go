package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/valyala/fasthttp"
)

// fastHandler is the yardstick on fasthttp (--engine fasthttp): the same
// checks and the same bytes as handler, for GET and 304 only (no
// long-poll, no trigger), to show what another HTTP engine gives on this
// machine (issue 18).
type fastHandler struct {
	doc *document
}

var (
	pathEvents      = []byte("/metadata/scheduledevents")
	headerMetadata  = []byte("Metadata")
	headerNoneMatch = []byte("If-None-Match")
	valueTrue       = []byte("true")
	argAPIVersion   = []byte("api-version")
)

// serve answers a request as handler.ServeHTTP does a GET that is not a
// long-poll.
func (h *fastHandler) serve(ctx *fasthttp.RequestCtx) {
	if !bytes.Equal(ctx.Path(), pathEvents) {
		ctx.Error("404 page not found", fasthttp.StatusNotFound)
		return
	}
	ctx.Response.Header.Set("Forewarn-Long-Poll", "true")
	if !ctx.IsGet() {
		ctx.Response.Header.Set("Allow", "GET, POST")
		ctx.Error("Method not allowed", fasthttp.StatusMethodNotAllowed)
		return
	}
	if !bytes.EqualFold(ctx.Request.Header.PeekBytes(headerMetadata), valueTrue) {
		fastBody(ctx, fasthttp.StatusBadRequest, errMetadataHeader)
		return
	}
	if !apiVersions[string(ctx.QueryArgs().PeekBytes(argAPIVersion))] {
		fastBody(ctx, fasthttp.StatusBadRequest, errAPIVersion)
		return
	}
	d := h.doc
	ctx.Response.Header.Set("ETag", d.etag)
	if string(ctx.Request.Header.PeekBytes(headerNoneMatch)) == d.etag {
		ctx.SetStatusCode(fasthttp.StatusNotModified)
		return
	}
	ctx.SetContentType(contentTypeJSON)
	ctx.SetBody(d.body)
}

// fastBody answers an error with a JSON body.
func fastBody(ctx *fasthttp.RequestCtx, status int, body string) {
	ctx.SetStatusCode(status)
	ctx.SetContentType(contentTypeJSON)
	ctx.SetBodyString(body)
}

// serveFast answers on ln with fasthttp until ctx is done.
func serveFast(ctx context.Context, ln net.Listener, body []byte, etag string, stderr io.Writer) error {
	h := &fastHandler{doc: newDocument(body, etag)}
	// As net/http: a Date header, no Server header, header names as
	// written (ETag, not Etag).
	srv := &fasthttp.Server{Handler: h.serve, ReadTimeout: 10 * time.Second, NoDefaultServerHeader: true,
		DisableHeaderNamesNormalizing: true}
	fmt.Fprintf(stderr, "listening addr=%s\n", ln.Addr())
	return serveUntil(ctx, func() error { return srv.Serve(ln) }, srv.ShutdownWithContext)
}
