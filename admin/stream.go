package admin

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
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
	h.Set("Vary", "Accept-Encoding")
	gzipped := acceptsGzip(r.Header.Values("Accept-Encoding"))
	if gzipped {
		h.Set("Content-Encoding", "gzip")
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	s.metrics.streams.Inc()
	defer s.metrics.streams.Dec()
	sw := newSSEWriter(w, gzipped)
	ctx, stop := context.WithCancel(r.Context())
	defer stop()
	defer context.AfterFunc(s.done, stop)() // unregistered when the stream ends
	if err := s.runStream(ctx, sw, s.stillAuthorized(r)); err != nil && ctx.Err() == nil {
		s.log.Debug("stream ended", "err", err)
	}
	sw.close()
}

// stillAuthorized returns what tells whether the credentials of a stream
// still hold: a session cookie ends with sign-out or its expiry, and the
// stream with it (the page's reconnection then meets the 401); a bearer
// token holds as long as the server runs.
func (s *Server) stillAuthorized(r *http.Request) func() bool {
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
	seq, changed := s.sendState(sw)
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
			sw.event("ping", map[string]any{"serverTime": s.clock.Now()})
		case <-changed:
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(streamCoalesce):
			}
			var items []*hubItem
			var current bool
			if items, seq, changed, current = s.hub.since(seq); current {
				s.sendItems(sw, items)
			} else {
				seq, changed = s.sendState(sw)
			}
		}
		if !valid() {
			return nil
		}
		if err := sw.flush(); err != nil {
			return err
		}
	}
}

// sendState writes hello, the whole state and ready: at the start, and
// again for a stream that fell behind what the hub remembers of removed
// scopes. It returns where the stream is and the channel of the next change.
func (s *Server) sendState(sw *sseWriter) (uint64, <-chan struct{}) {
	sw.event("hello", map[string]any{"replica": s.replica, "version": s.version, "serverTime": s.clock.Now()})
	items, seq, changed, _ := s.hub.since(0)
	s.sendItems(sw, items)
	sw.event("ready", struct{}{})
	return seq, changed
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

// writeTimeout bounds each write to the connection: a client that stops
// reading, whose socket buffers are full, loses its stream instead of
// holding the handler (and the server's shutdown) for as long as it stalls,
// while a client on a slow link still gets a large batch, write by write.
const writeTimeout = 30 * time.Second

// sseWriter writes Server-Sent Events into a buffer that flush sends,
// gzipped if the client takes it (the fleet's JSON shrinks about tenfold,
// which matters to an operator on a VPN); the first write error sticks.
type sseWriter struct {
	buf *bufio.Writer
	gz  *gzip.Writer // nil: not compressed
	rc  *http.ResponseController
	err error
}

func newSSEWriter(w http.ResponseWriter, gzipped bool) *sseWriter {
	rc := http.NewResponseController(w)
	sw := &sseWriter{rc: rc}
	var out io.Writer = deadlineWriter{w, rc}
	if gzipped {
		sw.gz, _ = gzip.NewWriterLevel(out, gzip.BestSpeed) // a valid level: no error
		out = sw.gz
	}
	sw.buf = bufio.NewWriterSize(out, 32<<10)
	return sw
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
	if sw.err == nil {
		_, sw.err = fmt.Fprintf(sw.buf, "event: %s\ndata: %s\n\n", name, data)
	}
}

// flush sends what was written.
func (sw *sseWriter) flush() error {
	if sw.err == nil {
		sw.err = sw.buf.Flush()
	}
	if sw.err == nil && sw.gz != nil {
		sw.err = sw.gz.Flush()
	}
	if sw.err == nil {
		sw.err = sw.rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	}
	if sw.err == nil {
		sw.err = sw.rc.Flush()
	}
	return sw.err
}

// close ends a gzipped stream with its trailer, so that the client sees a
// clean end rather than a cut one.
func (sw *sseWriter) close() {
	if sw.gz != nil && sw.err == nil {
		sw.err = sw.gz.Close()
		_ = sw.flush()
	}
}

// deadlineWriter gives each write to the connection writeTimeout of its
// own.
type deadlineWriter struct {
	w  io.Writer
	rc *http.ResponseController
}

func (d deadlineWriter) Write(p []byte) (int, error) {
	if err := d.rc.SetWriteDeadline(time.Now().Add(writeTimeout)); err != nil {
		return 0, err
	}
	return d.w.Write(p)
}

// acceptsGzip reports whether an Accept-Encoding names gzip with a weight
// above zero (RFC 9110 12.5.3).
func acceptsGzip(values []string) bool {
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			name, params, _ := strings.Cut(part, ";")
			if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
				continue
			}
			q, found := strings.CutPrefix(strings.TrimSpace(params), "q=")
			if !found {
				return true
			}
			w, err := strconv.ParseFloat(q, 64)
			return err == nil && w > 0
		}
	}
	return false
}
