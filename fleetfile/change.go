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
