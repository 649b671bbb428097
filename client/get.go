package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// longPollHeader marks answers of a service that offers long-poll.
const longPollHeader = "Forewarn-Long-Poll"

// Get reads the Scheduled Events document, retrying as the package doc
// says. The first read of a Client may take minutes (see WithTimeouts).
func (c *Client) Get(ctx context.Context) (*Document, error) {
	var doc *Document
	err := c.withRetry(ctx, "get scheduled events", func(ctx context.Context) error {
		r, err := c.fetch(ctx, docRequest{})
		doc = r.doc
		return err
	})
	if err != nil {
		return nil, err
	}
	return doc, nil
}

// docRequest says how one read of the document is made.
type docRequest struct {
	ifNoneMatch  string // sent as If-None-Match; "" for none
	longPollETag string // non-empty: long-poll until the ETag differs
}

// docReply is one read's outcome: a document, or "not modified".
type docReply struct {
	doc         *Document
	notModified bool
	longPoll    bool // the service offers long-poll
}

// fetch makes one read of the document as r says.
func (c *Client) fetch(ctx context.Context, r docRequest) (docReply, error) {
	query := url.Values{"api-version": {c.apiVersion}}
	timeout := c.readTimeout()
	if r.longPollETag != "" {
		query.Set("wait_for_change", "true")
		query.Set("last_etag", r.longPollETag)
		query.Set("timeout_sec", strconv.Itoa(int(c.longPollTimeout/time.Second)))
		timeout = c.longPollTimeout + c.requestTimeout
	}
	rep, err := c.do(ctx, call{method: http.MethodGet, path: scheduledEventsPath,
		query: query, ifNoneMatch: r.ifNoneMatch, timeout: timeout})
	if err != nil {
		return docReply{}, err
	}
	c.enabled.Store(true)
	return c.readDocReply(rep, r.ifNoneMatch != "")
}

// readDocReply decodes a successful answer to a read.
func (c *Client) readDocReply(rep *reply, conditional bool) (docReply, error) {
	out := docReply{longPoll: strings.EqualFold(strings.TrimSpace(rep.header.Get(longPollHeader)), "true")}
	switch {
	case rep.status == http.StatusNotModified && conditional:
		out.notModified = true
		return out, nil
	case rep.status != http.StatusOK:
		return docReply{}, fmt.Errorf("%w: status %d to a read of the document", ErrMalformedResponse, rep.status)
	}
	var doc Document
	if err := json.Unmarshal(rep.body, &doc); err != nil {
		return docReply{}, fmt.Errorf("%w: decode document: %v", ErrMalformedResponse, err)
	}
	doc.ETag = rep.header.Get("ETag")
	doc.LongPoll = out.longPoll
	c.incarnation.Store(int64(doc.DocumentIncarnation))
	out.doc = &doc
	return out, nil
}

// readTimeout is the deadline of a plain read: long until the service has
// answered one (it may delay the first while it enables itself).
func (c *Client) readTimeout() time.Duration {
	if c.enabled.Load() {
		return c.requestTimeout
	}
	return c.firstCallTimeout
}
