package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
)

// Watch calls fn with each new document: the first one read, then each
// whose DocumentIncarnation differs from the last delivered, each exactly
// once and in the order read. It long-polls when the service offers it and
// polls with If-None-Match otherwise (see the package doc). Failed reads are
// logged and retried with backoff (at most 30s apart) for as long as ctx
// lasts, so Watch survives the service restarting.
//
// Watch returns ctx.Err() when ctx ends, or fn's error as it is when fn
// returns one. fn runs on Watch's goroutine: while it runs, nothing is
// read. It may call the Client, for instance Approve.
func (c *Client) Watch(ctx context.Context, fn func(*Document) error) error {
	w := &watcher{c: c, fn: fn, longPollAllowed: c.longPollTimeout > 0}
	return w.run(ctx)
}

// watcher is the state of one Watch.
type watcher struct {
	c               *Client
	fn              func(*Document) error
	etag            string // ETag of the last document read
	serverLongPoll  bool   // the last answer offered long-poll
	longPollAllowed bool   // long-poll is on and has not failed
	delivered       bool   // a document has been delivered
	last            int    // its DocumentIncarnation
	failures        int    // consecutive failed reads
}

// run is Watch's loop: read, deliver if new, pause unless long-polling.
func (w *watcher) run(ctx context.Context) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		longPolling := w.longPolling()
		rep, err := w.c.fetch(ctx, w.request(longPolling))
		if err != nil {
			if err := w.failed(ctx, err, longPolling); err != nil {
				return err
			}
			continue
		}
		w.recovered()
		changed, err := w.handle(rep)
		if err != nil {
			return err
		}
		if changed && w.longPolling() {
			continue // wait for the next change at once
		}
		if err := w.c.sleep(ctx, w.c.pollInterval); err != nil {
			return err
		}
	}
}

// longPolling reports whether the next read should long-poll.
func (w *watcher) longPolling() bool {
	return w.longPollAllowed && w.serverLongPoll && w.etag != ""
}

// request builds the next read.
func (w *watcher) request(longPolling bool) docRequest {
	if longPolling {
		return docRequest{longPollETag: bareETag(w.etag)}
	}
	return docRequest{ifNoneMatch: w.etag}
}

// handle takes in a successful read and delivers its document if it is
// new. It reports whether it delivered, and fn's error.
func (w *watcher) handle(rep docReply) (bool, error) {
	w.serverLongPoll = rep.longPoll
	if rep.notModified {
		return false, nil
	}
	w.etag = rep.doc.ETag
	if w.delivered && rep.doc.DocumentIncarnation == w.last {
		return false, nil
	}
	w.delivered, w.last = true, rep.doc.DocumentIncarnation
	w.c.logger.Debug("scheduled events changed", "incarnation", w.last, "events", len(rep.doc.Events))
	return true, w.fn(rep.doc)
}

// failed logs a failed read and waits before the next. A 400 to a
// long-poll turns long-poll off: the service, or something in front of it,
// does not take the extension.
func (w *watcher) failed(ctx context.Context, err error, longPolling bool) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	apiErr, isAPI := errors.AsType[*APIError](err)
	if isAPI && longPolling && apiErr.StatusCode == http.StatusBadRequest {
		w.longPollAllowed = false
		w.c.logger.Warn("long-poll refused, polling from now on", "error", err)
	}
	// No retry mends an endpoint that is not one: a bad address, or a
	// server that has no such path (another service, forewarn's admin API);
	// nor options that do not go together, nor a source address the host
	// cannot connect from.
	if errors.Is(err, ErrInvalidEndpoint) || errors.Is(err, ErrConflictingOptions) || errors.Is(err, ErrSourceAddr) ||
		(isAPI && apiErr.StatusCode == http.StatusNotFound) {
		return err
	}
	wait := w.c.retry.delay(w.failures, err)
	w.failures++
	w.c.logger.Warn("scheduled events watch: read failed, retrying", "error", err,
		"failures", w.failures, "retry_in", wait)
	return w.c.sleep(ctx, wait)
}

// recovered notes a successful read after failures.
func (w *watcher) recovered() {
	if w.failures > 0 {
		w.c.logger.Info("scheduled events watch: reads succeed again", "after_failures", w.failures)
	}
	w.failures = 0
}

// bareETag strips the weak prefix and quotes of an entity tag: W/"4" -> 4.
func bareETag(etag string) string {
	return strings.Trim(strings.TrimPrefix(strings.TrimSpace(etag), "W/"), `"`)
}
