package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Errors the client returns that are not answers of the service. None is
// retried.
var (
	// ErrInvalidEndpoint: the configured endpoint is not an http(s) URL
	// with a host.
	ErrInvalidEndpoint = errors.New("invalid metadata endpoint")
	// ErrConflictingOptions: New was given options that do not go
	// together (WithSourceAddr and WithHTTPClient).
	ErrConflictingOptions = errors.New("conflicting client options")
	// ErrMalformedResponse: the service answered with a success status but
	// a body or status the client cannot use.
	ErrMalformedResponse = errors.New("malformed metadata response")
)

// maxRetryAfter bounds how long a Retry-After header may make the client
// wait, against absurd values.
const maxRetryAfter = 10 * time.Minute

// APIError is an error status answered by the metadata service.
type APIError struct {
	// StatusCode is the HTTP status, such as 400 or 429.
	StatusCode int
	// Message is the service's "error" text, or the body or status text
	// when the body has none.
	Message string
	// NewestVersions lists the api-versions the service suggests when it
	// refuses the one sent ("newest-versions"), newest first.
	NewestVersions []string
	// RetryAfter is the wait the Retry-After header asked for; 0 if none.
	RetryAfter time.Duration
}

// Error says the status and the service's message.
func (e *APIError) Error() string {
	return fmt.Sprintf("metadata service answered %d %s: %s",
		e.StatusCode, http.StatusText(e.StatusCode), e.Message)
}

// Retryable reports whether the request may succeed if sent again: 410,
// 429 and 5xx.
func (e *APIError) Retryable() bool {
	s := e.StatusCode
	return s == http.StatusGone || s == http.StatusTooManyRequests || s >= 500
}

// newAPIError builds the error of a response with status, header and body.
func newAPIError(status int, header http.Header, body []byte, now time.Time) *APIError {
	e := &APIError{StatusCode: status, RetryAfter: parseRetryAfter(header.Get("Retry-After"), now)}
	e.Message, e.NewestVersions = parseErrorBody(body)
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	return e
}

// parseErrorBody reads {"error": "...", "newest-versions": [...]}. It also
// accepts {"error": {"message": "..."}}, and falls back to the body text.
func parseErrorBody(body []byte) (string, []string) {
	var wire struct {
		Error    json.RawMessage `json:"error"`
		Versions []string        `json:"newest-versions"`
	}
	if json.Unmarshal(body, &wire) == nil && len(wire.Error) > 0 {
		var text string
		if json.Unmarshal(wire.Error, &text) == nil {
			return text, wire.Versions
		}
		var obj struct{ Message string }
		if json.Unmarshal(wire.Error, &obj) == nil && obj.Message != "" {
			return obj.Message, wire.Versions
		}
	}
	return truncate(strings.TrimSpace(string(body)), 200), nil
}

// parseRetryAfter reads delay-seconds or an HTTP date; 0 when absent or bad.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		d = time.Duration(min(max(secs, 0), int64(maxRetryAfter/time.Second))) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), maxRetryAfter)
}

// truncate shortens s to at most n bytes, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
