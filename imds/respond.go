package imds

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

const (
	contentTypeJSON = "application/json; charset=utf-8"
	contentTypeText = "text/plain; charset=utf-8"
	// longPollHeader marks every answer of /metadata/scheduledevents
	// (SPEC.md 3, extension).
	longPollHeader = "Forewarn-Long-Poll"
)

// errorBody is the JSON of every error answer.
type errorBody struct {
	Error  string   `json:"error"`
	Newest []string `json:"newest-versions,omitempty"`
}

// writeError answers with e.
func writeError(w http.ResponseWriter, e *apiError) {
	if e.allow != "" {
		w.Header().Set("Allow", e.allow)
	}
	if e.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.retryAfter))
	}
	body, err := marshal(errorBody{Error: e.msg, Newest: e.newest})
	if err != nil { // cannot happen: strings only
		body = []byte(`{"error":"` + textInternal + `"}`)
	}
	writeBody(w, e.status, contentTypeJSON, body)
}

// Header names in canonical form, as keys of an http.Header map. Note
// "Etag": the canonical form of ETag.
const (
	headerContentType   = "Content-Type"
	headerContentLength = "Content-Length"
	headerETag          = "Etag"
)

// Header values built once and assigned straight into the header map, since
// Header.Set allocates a new []string on every call. They are shared by all
// requests and never changed: net/http only reads them, and a wrapper that
// Adds to one gets a copy (a slice literal's capacity is its length).
var (
	contentTypeJSONValue = []string{contentTypeJSON}
	contentTypeTextValue = []string{contentTypeText}
	longPollValue        = []string{"true"}
)

// contentTypeValue is the pre-built header value of a content type.
func contentTypeValue(contentType string) []string {
	switch contentType {
	case contentTypeJSON:
		return contentTypeJSONValue
	case contentTypeText:
		return contentTypeTextValue
	}
	return []string{contentType}
}

// lengthValue is the Content-Length header value of a body.
func lengthValue(body []byte) []string {
	return []string{strconv.Itoa(len(body))}
}

// writeBody answers with a status and a body of the given type.
func writeBody(w http.ResponseWriter, status int, contentType string, body []byte) {
	writePrepared(w, status, contentTypeValue(contentType), lengthValue(body), body)
}

// writePrepared answers with a status and a body whose Content-Type and
// Content-Length header values are given ready-made (see longPollValue).
func writePrepared(w http.ResponseWriter, status int, contentType, length []string, body []byte) {
	h := w.Header()
	h[headerContentType] = contentType
	h[headerContentLength] = length
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// marshal encodes v as compact JSON, without escaping <, > and &, and
// without the encoder's trailing newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
