package main

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Long-poll timeouts, forewarn's (SPEC.md 3).
const (
	defaultPollTimeout = 60 * time.Second
	maxPollTimeout     = 300 * time.Second
)

// The bodies of the 400 answers to bad long-poll parameters, forewarn's
// texts.
const (
	errWaitForChange = `{"error":"Bad request. wait_for_change must be true or false"}`
	errTimeout       = `{"error":"Bad request. timeout_sec must be a whole number of seconds from 1 to 300"}`
)

// longPoll is what a GET's query asks of the wait: a long-poll is
// wait_for_change=true with a last_etag.
type longPoll struct {
	wait    bool
	lastTag string // last_etag without its quotes
	timeout time.Duration
}

// parsePoll reads wait_for_change, last_etag and timeout_sec as forewarn
// does, or returns the body of the 400 they earn.
func parsePoll(q url.Values) (longPoll, string) {
	p := longPoll{timeout: defaultPollTimeout}
	wait := false
	if v, ok := q["wait_for_change"]; ok {
		switch {
		case strings.EqualFold(v[0], "true"):
			wait = true
		case !strings.EqualFold(v[0], "false"):
			return p, errWaitForChange
		}
	}
	if v, ok := q["timeout_sec"]; ok {
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 1 || n > int(maxPollTimeout/time.Second) {
			return p, errTimeout
		}
		p.timeout = time.Duration(n) * time.Second
	}
	if v, ok := q["last_etag"]; ok && wait {
		p.wait, p.lastTag = true, opaqueTag(v[0])
	}
	return p, ""
}

// opaqueTag strips an entity tag's weak prefix and quotes, if it has them.
func opaqueTag(s string) string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "W/")
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

// hold waits until d is replaced, the long-poll times out or the server
// stops, and returns the document then current; nil if the client went
// away first.
func (h *handler) hold(r *http.Request, d *document, poll longPoll) *document {
	timeout := time.NewTimer(poll.timeout)
	defer timeout.Stop()
	select {
	case <-d.changed:
	case <-timeout.C:
	case <-h.stopping:
	case <-r.Context().Done():
		return nil
	}
	return h.doc.Load()
}

// stop answers every held long-poll, as forewarn does when it shuts down.
func (h *handler) stop() { h.stopOnce.Do(func() { close(h.stopping) }) }

// trigger is POST /trigger, the change a long-poll load waits for: it
// replaces the document by the same body tagged with the next incarnation
// (the ETag is forewarn's, a quoted incarnation number), and wakes every
// long-poll held on the old one. It answers 204 with the new ETag.
func (h *handler) trigger(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "Method not allowed: POST /trigger changes the document", http.StatusMethodNotAllowed)
		return
	}
	h.triggerMu.Lock()
	defer h.triggerMu.Unlock()
	old := h.doc.Load()
	n, err := strconv.ParseInt(old.tag, 10, 64)
	if err != nil {
		http.Error(w, fmt.Sprintf("ETag %s is not a quoted incarnation number: no next one to change to", old.etag),
			http.StatusConflict)
		return
	}
	d := newDocument(old.body, `"`+strconv.FormatInt(n+1, 10)+`"`)
	h.doc.Store(d)
	close(old.changed)
	w.Header().Set("ETag", d.etag)
	w.WriteHeader(http.StatusNoContent)
}
