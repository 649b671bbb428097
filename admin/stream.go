package admin

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/forewarn/forewarn"
)

const (
	// streamCoalesce is how long a stream waits after a change before it
	// sends: a burst of changes (a campaign's wave, a fleet being applied)
	// goes out as one batch, with each scope in it once.
	streamCoalesce = 100 * time.Millisecond
	// streamPing is how often an idle stream sends a ping, so that the
	// page notices a dead connection and proxies keep a live one open.
	streamPing = 15 * time.Second
)

// stream answers GET /v1/stream with Server-Sent Events: hello, the whole
// state (a scope message for every scope, a campaign message for every
// campaign), ready, and then every change as it happens, with a ping when
// idle. A client that reconnects gets the whole state again.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	if _, err := checkQuery(r.URL.RawQuery, nil); err != nil {
		s.writeError(w, r, err)
		return
	}
	if s.hub == nil {
		s.writeError(w, r, forewarn.Errorf(forewarn.ErrNotFound, "this server has no live stream"))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: pass events on as they come
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	sw := &sseWriter{w: bufio.NewWriterSize(w, 32<<10), rc: http.NewResponseController(w)}
	ctx, stop := context.WithCancel(r.Context())
	defer stop()
	defer context.AfterFunc(s.done, stop)() // unregistered when the stream ends
	if err := s.runStream(ctx, sw, s.credentialsLast(r)); err != nil && ctx.Err() == nil {
		s.log.Debug("stream ended", "err", err)
	}
}

// credentialsLast returns what tells whether the credentials of a stream
// still hold: a session cookie ends with sign-out or its expiry, and the
// stream with it (the page's reconnection then meets the 401); a bearer
// token holds as long as the server runs.
func (s *Server) credentialsLast(r *http.Request) func() bool {
	if r.Header.Get("Authorization") != "" {
		return func() bool { return true }
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil { // authorize let the request in, so there is a cookie
		return func() bool { return false }
	}
	return func() bool { return s.sessions.valid(c.Value) }
}

// runStream sends the stream until ctx ends (the client went away or the
// server shuts down), the credentials stop holding, or a write fails.
func (s *Server) runStream(ctx context.Context, sw *sseWriter, valid func() bool) error {
	sw.event("hello", map[string]any{"replica": s.replica, "version": s.version, "serverTime": time.Now()})
	items, seq, changed := s.hub.since(0)
	s.sendItems(sw, items)
	sw.event("ready", struct{}{})
	if err := sw.flush(); err != nil {
		return err
	}
	ping := time.NewTicker(streamPing)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ping.C:
			sw.event("ping", map[string]any{"serverTime": time.Now()})
		case <-changed:
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(streamCoalesce):
			}
			items, seq, changed = s.hub.since(seq)
			s.sendItems(sw, items)
		}
		if !valid() {
			return nil
		}
		if err := sw.flush(); err != nil {
			return err
		}
	}
}

// sendItems writes the items; one that does not encode is logged and left
// out rather than ending every operator's stream.
func (s *Server) sendItems(sw *sseWriter, items []*hubItem) {
	for _, it := range items {
		data, err := it.encode()
		if err != nil {
			s.log.Error("encode stream message", "event", it.event, "err", err)
			continue
		}
		sw.raw(it.event, data)
	}
}

// writeTimeout bounds the sending of one batch of events: a client that
// stops reading, whose socket buffers are full, loses its stream instead of
// holding the handler (and the server's shutdown) for as long as it stalls.
const writeTimeout = 30 * time.Second

// sseWriter writes Server-Sent Events into a buffer that flush sends; the
// first write error sticks. The buffer may also reach the connection before
// flush, when it fills, so the write deadline is set by the first write of
// each batch.
type sseWriter struct {
	w     *bufio.Writer
	rc    *http.ResponseController
	armed bool // the write deadline is set for this batch
	err   error
}

// event writes one event whose data is v as JSON.
func (sw *sseWriter) event(name string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		sw.err = fmt.Errorf("encode %s: %w", name, err)
		return
	}
	sw.raw(name, data)
}

// raw writes one event whose data is JSON, which holds no newline.
func (sw *sseWriter) raw(name string, data []byte) {
	if sw.err == nil && !sw.armed {
		sw.err = sw.rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		sw.armed = true
	}
	if sw.err == nil {
		_, sw.err = fmt.Fprintf(sw.w, "event: %s\ndata: %s\n\n", name, data)
	}
}

// flush sends the batch written since the last flush.
func (sw *sseWriter) flush() error {
	if sw.err == nil {
		sw.err = sw.w.Flush()
	}
	if sw.err == nil {
		sw.err = sw.rc.Flush()
	}
	sw.armed = false
	return sw.err
}
