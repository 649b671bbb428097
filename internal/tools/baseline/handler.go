package main

import (
	"net/http"
	"strconv"
	"strings"
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

// handler answers GET /metadata/scheduledevents with a fixed document.
type handler struct {
	body   []byte
	etag   string
	length string // len(body), for Content-Length
}

// newHandler returns the handler of body, tagged etag (quotes included).
func newHandler(body []byte, etag string) *handler {
	return &handler{body: body, etag: etag, length: strconv.Itoa(len(body))}
}

// ServeHTTP checks path, method, the Metadata header and api-version, then
// answers the document, or 304 if If-None-Match is exactly its ETag. The
// headers are forewarn's: Content-Type, Content-Length, ETag and
// Forewarn-Long-Poll, so that both servers write the same bytes.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/metadata/scheduledevents" {
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
	if !apiVersions[r.URL.Query().Get("api-version")] {
		writeBody(w, http.StatusBadRequest, errAPIVersion)
		return
	}
	hdr := w.Header()
	hdr.Set("ETag", h.etag)
	if r.Header.Get("If-None-Match") == h.etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	hdr.Set("Content-Type", contentTypeJSON)
	hdr.Set("Content-Length", h.length)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(h.body)
}

// writeBody answers an error with a JSON body.
func writeBody(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", contentTypeJSON)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}
