package forewarn

import (
	"errors"
	"fmt"
)

// Sentinel errors. Callers test them with errors.Is; every error the parts
// return to a user wraps one of them through Errorf, so that the edge (HTTP,
// CLI) maps it to a status in one place.
var (
	// ErrNotFound: the named scope, VM or event does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict: the request clashes with the current state, such as a
	// name that is taken, a VM that already has an event in flight, or an
	// event that has started and can no longer be cancelled.
	ErrConflict = errors.New("conflict")
	// ErrInvalid: the request itself is malformed or names something the
	// caller may not use.
	ErrInvalid = errors.New("invalid")
	// ErrLimit: a limit was reached, such as the number of user operations
	// in flight in a scope.
	ErrLimit = errors.New("limit reached")
	// ErrUnauthorized: the admin token is missing or wrong.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrForbidden: the request is refused whatever its credentials, such
	// as a change made with the dashboard's cookie from another site.
	ErrForbidden = errors.New("forbidden")
	// ErrSchema: the store was written by a newer release.
	ErrSchema = errors.New("unsupported store schema")
	// ErrUnavailable: the store did not answer (etcd out of reach, or
	// electing a leader); the request may be tried again.
	ErrUnavailable = errors.New("store unavailable")
	// ErrTooLarge: a transaction writes more than the store takes in one
	// (etcd's --max-txn-ops); the same work in smaller parts may succeed.
	ErrTooLarge = errors.New("transaction too large")
)

// Error is an error meant for the user: Message says what was wrong, Kind is
// the sentinel it wraps.
type Error struct {
	Kind    error
	Message string
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the sentinel, so that errors.Is(err, ErrNotFound) holds.
func (e *Error) Unwrap() error { return e.Kind }

// Errorf returns an *Error of the given kind with a formatted message.
func Errorf(kind error, format string, args ...any) error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// ErrorMessage returns the message of a user error, or a generic text for any
// other error, whose details belong in the log only.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	if errors.Is(err, ErrUnavailable) {
		return "the store is unavailable (etcd out of reach or electing a leader); try again"
	}
	if errors.Is(err, ErrTooLarge) {
		return "the change is too large for one transaction of the store (etcd's --max-txn-ops): make it in smaller parts"
	}
	return "internal error"
}
