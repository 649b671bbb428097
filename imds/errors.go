package imds

import (
	"fmt"
	"net/http"
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
