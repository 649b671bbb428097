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

// reply is the answer to a request: built by the handler, then written by
// the engine that carries the request (writeHTTP, writeFast). A zero
// status means no answer: the client went away.
type reply struct {
	status int
	// contentType is contentTypeJSON, contentTypeText or "" (a 304).
	contentType string
	body        []byte
	// length is body's Content-Length header value, ready-made for
	// net/http (see longPollValue), or nil to count it.
	length []string
	// etag is the ETag header's value, ready-made, or nil for none.
	etag []string
	// allow is the Allow header of a 405; retryAfter the Retry-After header
	// of a 429, in seconds.
	allow      string
	retryAfter int
	// longPoll sets longPollHeader.
	longPoll bool
}

// errorBody is the JSON of every error answer.
type errorBody struct {
	Error  string   `json:"error"`
	Newest []string `json:"newest-versions,omitempty"`
}

// fail answers with e.
func (out *reply) fail(e *apiError) {
	body, err := marshal(errorBody{Error: e.msg, Newest: e.newest})
	if err != nil { // cannot happen: strings only
		body = []byte(`{"error":"` + textInternal + `"}`)
	}
	out.allow, out.retryAfter = e.allow, e.retryAfter
	out.send(e.status, contentTypeJSON, body, nil)
}

// send answers with a status and a body of the given type; length is the
// body's Content-Length value if ready-made, else nil.
func (out *reply) send(status int, contentType string, body []byte, length []string) {
	out.status, out.contentType, out.body, out.length = status, contentType, body, length
}

// Header names in canonical form, as keys of an http.Header map. Note
// "Etag": the canonical form of ETag.
const (
	headerContentType   = "Content-Type"
	headerContentLength = "Content-Length"
	headerETag          = "Etag"
)

// Header values built once and assigned straight into net/http's header
// map, since Header.Set allocates a new []string on every call. They are
// shared by all requests and never changed: net/http only reads them, and a
// wrapper that Adds to one gets a copy (a slice literal's capacity is its
// length).
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

// writeHTTP writes out with net/http.
func writeHTTP(w http.ResponseWriter, out *reply) {
	if out.status == 0 {
		// The client has gone (or half-closed its side): no answer, not
		// the empty 200 net/http would send, where the connection can be
		// taken over.
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = conn.Close()
		}
		return
	}
	h := w.Header()
	if out.longPoll {
		h[longPollHeader] = longPollValue
	}
	if out.allow != "" {
		h.Set("Allow", out.allow)
	}
	if out.retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(out.retryAfter))
	}
	if out.etag != nil {
		h[headerETag] = out.etag
	}
	if out.contentType == "" {
		w.WriteHeader(out.status)
		return
	}
	h[headerContentType] = contentTypeValue(out.contentType)
	if out.length == nil {
		out.length = lengthValue(out.body)
	}
	h[headerContentLength] = out.length
	w.WriteHeader(out.status)
	_, _ = w.Write(out.body)
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
