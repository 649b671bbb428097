package fleetfile

import (
	"context"
	"fmt"
	"strings"

	"github.com/forewarn/forewarn"
)

// The actions of a change.
const (
	ActionCreate    = "create"
	ActionDelete    = "delete"
	ActionUnchanged = "unchanged"
	ActionConflict  = "conflict"
)

// The kinds of thing a change is about.
const (
	KindScope = "scope"
	KindVM    = "vm"
)

// Change is what applying a fleet file does, or would do, to one scope or
// VM.
type Change struct {
	// Action is ActionCreate, ActionDelete, ActionUnchanged or
	// ActionConflict.
	Action string `json:"action"`
	// Kind is KindScope or KindVM.
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Detail describes what is created or deleted, or for a conflict each
	// field that differs, such as "kind: file scale-set, server
	// availability-set"; empty when unchanged.
	Detail string `json:"detail,omitempty"`
}

// String formats the change as "create scope web: availability-set, ...".
func (c Change) String() string {
	s := c.Action + " " + c.Kind + " " + c.Name
	if c.Detail != "" {
		s += ": " + c.Detail
	}
	return s
}

// step is a change of the plan with where the file declares it (0 for a
// deletion) and what makes it.
type step struct {
	Change
	line int
	// A create carries what it creates, so that Apply can create many in
	// one batch; any other change that acts carries do.
	scope *forewarn.ScopeSpec
	vm    *forewarn.VMSpec
	do    func(ctx context.Context, fleet forewarn.Fleet) error
}

// creates reports whether the step creates a scope or a VM.
func (s step) creates() bool { return s.scope != nil || s.vm != nil }

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
	noun := "conflicts"
	if len(e.Conflicts) == 1 {
		noun = "conflict"
	}
	return fmt.Sprintf("%s: %d %s with the fleet, nothing was changed", e.File, len(e.Conflicts), noun)
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

// diffs collects the fields in which a declared scope or VM differs from
// the server's, as "field: file X, server Y".
type diffs []string

func (d *diffs) add(field string, file, server any) {
	f, s := fmt.Sprint(file), fmt.Sprint(server)
	if f != s {
		*d = append(*d, fmt.Sprintf("%s: file %s, server %s", field, f, s))
	}
}

func (d diffs) String() string { return strings.Join(d, "; ") }
