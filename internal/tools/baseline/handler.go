package main

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// apiVersions are the api-versions forewarn accepts on
// /metadata/scheduledevents (SPEC.md 2).
var apiVersions = map[string]bool{
	"2017-03-01": true, "2017-08-01": true, "2017-11-01": true, "2019-01-01": true,
	"2019-04-01": true, "2019-08-01": true, "2020-07-01": true,
}

// The bodies of the 400 answers, forewarn's texts (SPEC.md 5).
const (
	errMetadataHeader = `{"error":"Bad request. Required metadata header not specified"}`
	errAPIVersion     = `{"error":"Bad request. api-version is invalid or was not specified in the request. For more information refer to aka.ms/azureimds"}`
)

const contentTypeJSON = "application/json; charset=utf-8"

// document is the body answered and its ETag. It is never changed: a
// trigger replaces it, and closes changed to wake the long-polls held on
// it.
type document struct {
	body    []byte
	etag    string // quotes included
	tag     string // etag without its quotes, as last_etag gives it
	length  string // len(body), for Content-Length
	changed chan struct{}
}

// newDocument returns the document of body, tagged etag (quotes included).
func newDocument(body []byte, etag string) *document {
	return &document{body: body, etag: etag, tag: opaqueTag(etag),
		length: strconv.Itoa(len(body)), changed: make(chan struct{})}
}

// handler answers GET /metadata/scheduledevents with the current document,
// holds long-polls until a POST /trigger replaces it, and answers those.
type handler struct {
	doc       atomic.Pointer[document]
	triggerMu sync.Mutex // one trigger at a time: each closes the channel it replaced
	stopping  chan struct{}
	stopOnce  sync.Once
}

// newHandler returns the handler of body, tagged etag (quotes included).
func newHandler(body []byte, etag string) *handler {
	h := &handler{stopping: make(chan struct{})}
	h.doc.Store(newDocument(body, etag))
	return h
}

// ServeHTTP checks path, method, the Metadata header and the query, holds
// a long-poll whose last_etag is the current ETag, then answers the
// document, or 304 if a request that is not a long-poll names its ETag in
// If-None-Match. The headers are forewarn's: Content-Type, Content-Length,
// ETag and Forewarn-Long-Poll, so that both servers write the same bytes.
// POST /trigger replaces the document (trigger).
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/metadata/scheduledevents" {
		if r.URL.Path == "/trigger" {
			h.trigger(w, r)
			return
		}
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Forewarn-Long-Poll", "true")
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "Method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if !strings.EqualFold(r.Header.Get("Metadata"), "true") {
		writeBody(w, http.StatusBadRequest, errMetadataHeader)
		return
	}
	q := r.URL.Query()
	if !apiVersions[q.Get("api-version")] {
		writeBody(w, http.StatusBadRequest, errAPIVersion)
		return
	}
	poll, errBody := parsePoll(q)
	if errBody != "" {
		writeBody(w, http.StatusBadRequest, errBody)
		return
	}
	h.answer(w, r, poll)
}

// answer writes the document, after holding a long-poll for a change.
func (h *handler) answer(w http.ResponseWriter, r *http.Request, poll longPoll) {
	d := h.doc.Load()
	if poll.wait && poll.lastTag == d.tag {
		if d = h.hold(r, d, poll); d == nil {
			return // the client went away
		}
	}
	hdr := w.Header()
	hdr.Set("ETag", d.etag)
	if !poll.wait && r.Header.Get("If-None-Match") == d.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hdr.Set("Content-Type", contentTypeJSON)
	hdr.Set("Content-Length", d.length)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(d.body)
}

// writeBody answers an error with a JSON body.
func writeBody(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", contentTypeJSON)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}
