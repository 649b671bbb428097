package fleetfile

import (
	"fmt"
	"strings"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/plural"
)

// ConflictError is the error of Apply when the file conflicts with the
// fleet: it lists every conflict, and nothing was changed. It wraps a
// *forewarn.Error of kind forewarn.ErrConflict with the same message.
type ConflictError struct {
	// File is the fleet file's name.
	File string
	// Conflicts are the changes in conflict, in the order of the plan.
	Conflicts []Change
	// Lines are the lines of the file that declare them, one each.
	Lines []int
}

// conflictError lists the conflicts of a plan, or returns nil if it has
// none.
func conflictError(file string, steps []step) error {
	e := &ConflictError{File: file}
	for _, s := range steps {
		if s.Action == ActionConflict {
			e.Conflicts = append(e.Conflicts, s.Change)
			e.Lines = append(e.Lines, s.line)
		}
	}
	if len(e.Conflicts) == 0 {
		return nil
	}
	return e
}

// Summary says how many conflicts there are: "fleet.yaml: 2 conflicts with
// the fleet, nothing was changed".
func (e *ConflictError) Summary() string {
	return fmt.Sprintf("%s: %s with the fleet, nothing was changed", e.File, plural.Count(len(e.Conflicts), "conflict", "conflicts"))
}

// Positioned returns each conflict with where the file declares it:
// "fleet.yaml:2: scope web: updateDomains: file 3, server 2".
func (e *ConflictError) Positioned() []string {
	out := make([]string, len(e.Conflicts))
	for i, c := range e.Conflicts {
		out[i] = fmt.Sprintf("%s:%d: %s %s: %s", e.File, e.Lines[i], c.Kind, c.Name, c.Detail)
	}
	return out
}

// Error is the summary, then each conflict on a line of its own.
func (e *ConflictError) Error() string {
	return e.Summary() + ":\n  " + strings.Join(e.Positioned(), "\n  ")
}

// Unwrap returns the error as a *forewarn.Error of kind ErrConflict, so
// that errors.Is(err, forewarn.ErrConflict) holds and
// forewarn.ErrorMessage shows it.
func (e *ConflictError) Unwrap() error {
	return &forewarn.Error{Kind: forewarn.ErrConflict, Message: e.Error()}
}
