package admin

import (
	"errors"
	"net/http"

	"github.com/forewarn/forewarn"
)

// errorBody is the JSON of every error response. Code names the sentinel the
// error wraps, so that the client can restore it where the status alone is
// ambiguous (ErrConflict and ErrLimit are both 409), or one of the codes
// below. Every error the API answers has one.
type errorBody struct {
	Error string `json:"error"`
	Code  string `json:"code,omitempty"`
}

// The codes of the errors that wrap no sentinel.
const (
	// codeMethodNotAllowed answers a method that the path does not take
	// (405, with an Allow header).
	codeMethodNotAllowed = "method_not_allowed"
	// codeInternal answers a failure on the server's side (500); the
	// details are in the server's log.
	codeInternal = "internal"
)

// kind ties a root sentinel to its HTTP status and its code on the wire.
type kind struct {
	err    error
	status int
	code   string
}

// kinds lists the sentinels a user error may wrap, in the order they are
// tested.
var kinds = []kind{
	{forewarn.ErrNotFound, http.StatusNotFound, "not_found"},
	{forewarn.ErrLimit, http.StatusConflict, "limit"},
	{forewarn.ErrConflict, http.StatusConflict, "conflict"},
	{forewarn.ErrInvalid, http.StatusBadRequest, "invalid"},
	{forewarn.ErrUnauthorized, http.StatusUnauthorized, "unauthorized"},
	{forewarn.ErrForbidden, http.StatusForbidden, "forbidden"},
	{forewarn.ErrUnavailable, http.StatusServiceUnavailable, "unavailable"},
	{forewarn.ErrTooLarge, http.StatusRequestEntityTooLarge, "too_large"},
}

// StatusCode returns the HTTP status that answers err: 404 for
// forewarn.ErrNotFound, 409 for ErrConflict and ErrLimit, 400 for ErrInvalid
// (413 or 415 for a request body that is too large or not JSON), 401 for
// ErrUnauthorized, 403 for ErrForbidden, 503 for ErrUnavailable, 413 for
// ErrTooLarge, and 500 for anything else. It returns 200 for nil.
func StatusCode(err error) int {
	if err == nil {
		return http.StatusOK
	}
	var be *bodyError
	if errors.As(err, &be) {
		return be.status
	}
	if k, ok := kindOf(err); ok {
		return k.status
	}
	return http.StatusInternalServerError
}

// kindOf returns the kind of the first sentinel err wraps.
func kindOf(err error) (kind, bool) {
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			return k, true
		}
	}
	return kind{}, false
}

// kindByCode returns the kind with the given code on the wire.
func kindByCode(code string) (kind, bool) {
	for _, k := range kinds {
		if k.code == code {
			return k, true
		}
	}
	return kind{}, false
}

// bodyError is a user error about the request body (it wraps an
// *forewarn.Error of kind ErrInvalid) that has a status of its own: 413 for a
// body over the limit, 415 for a body that is not JSON.
type bodyError struct {
	status int
	err    error
}

func (e *bodyError) Error() string { return e.err.Error() }

// Unwrap returns the *forewarn.Error, so that errors.Is(err, ErrInvalid)
// holds and forewarn.ErrorMessage finds the message.
func (e *bodyError) Unwrap() error { return e.err }

// invalid returns a user error of kind ErrInvalid.
func invalid(format string, args ...any) error {
	return forewarn.Errorf(forewarn.ErrInvalid, format, args...)
}
