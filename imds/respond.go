package imds

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// The error texts of SPEC.md 5. Clients match them word for word.
const (
	textMetadataHeader = "Bad request. Required metadata header not specified"
	textForwarded      = "Bad request. Requests with X-Forwarded-For header are not allowed"
	textAPIVersion     = "Bad request. api-version is invalid or was not specified in the request. For more information refer to aka.ms/azureimds"
	textDuplicate      = "Bad request. Duplicate query parameter"
	textInternal       = "Internal server error"
)

// apiError is an answer other than success: a status and the text of the
// body's "error" field.
type apiError struct {
	status int
	msg    string
	// newest is the "newest-versions" list of an api-version error.
	newest []string
	// allow is the Allow header of a 405.
	allow string
	// retryAfter is the Retry-After header of a 429, in seconds.
	retryAfter int
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s", e.status, e.msg) }

var (
	errNotFound       = &apiError{status: http.StatusNotFound, msg: "Not found"}
	errForwarded      = &apiError{status: http.StatusBadRequest, msg: textForwarded}
	errMetadataHeader = &apiError{status: http.StatusBadRequest, msg: textMetadataHeader}
	errDuplicate      = &apiError{status: http.StatusBadRequest, msg: textDuplicate}
	errMalformedQuery = &apiError{status: http.StatusBadRequest, msg: "Bad request. Malformed query string"}
	errInternal       = &apiError{status: http.StatusInternalServerError, msg: textInternal}
	// errGone is the 410 of a chaos rule.
	errGone = &apiError{status: http.StatusGone, msg: "Gone"}
)

func badRequest(format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

func methodNotAllowed(allow string) *apiError {
	return &apiError{status: http.StatusMethodNotAllowed, msg: "Method not allowed", allow: allow}
}

func badVersion(vs versionSet) *apiError {
	return &apiError{status: http.StatusBadRequest, msg: textAPIVersion, newest: vs.newest}
}

func forbidden(addr string) *apiError {
	return &apiError{status: http.StatusForbidden,
		msg: fmt.Sprintf("Forbidden. The address %s belongs to no VM", addr)}
}

func tooManyRequests(retryAfter int) *apiError {
	return &apiError{status: http.StatusTooManyRequests, msg: "Too many requests", retryAfter: retryAfter}
}

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
