package fleetfile

import (
	"context"
	"fmt"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/plural"
)

// scopeStep plans a declared scope.
func (st *state) scopeStep(s Scope) step {
	c := Change{Kind: KindScope, Name: s.Spec.Name}
	have := st.scopes[forewarn.KeyOf(s.Spec.Name)]
	if have == nil {
		c.Action, c.Detail = ActionCreate, describeScope(s.Spec)
		spec := s.Spec
		return step{Change: c, line: s.Line, scope: &spec}
	}
	if d := scopeDiffs(s.Spec, have); len(d) > 0 {
		c.Action, c.Detail = ActionConflict, d.String()
	} else {
		c.Action = ActionUnchanged
	}
	return step{Change: c, line: s.Line}
}

// scopeDiffs lists what differs between a declared scope and the server's.
func scopeDiffs(spec forewarn.ScopeSpec, have *forewarn.Scope) diffs {
	var d diffs
	d.add("kind", spec.Kind, have.Kind)
	if have.Kind == forewarn.Standalone {
		return d
	}
	d.add("updateDomains", spec.UpdateDomains, have.UpdateDomains)
	d.add("faultDomains", spec.FaultDomains, have.FaultDomains)
	if spec.Kind == forewarn.ScaleSet && have.Kind == forewarn.ScaleSet {
		d.add("terminateNotice", shortDuration(time.Duration(spec.TerminateNotice)), shortDuration(forewarn.TerminateNoticeOf(have)))
	}
	return d
}

// describeScope summarises a scope to create.
func describeScope(spec forewarn.ScopeSpec) string {
	s := fmt.Sprintf("%s, %s, %s", spec.Kind, plural.Count(spec.UpdateDomains, "update domain", "update domains"),
		plural.Count(spec.FaultDomains, "fault domain", "fault domains"))
	if spec.Kind == forewarn.ScaleSet {
		s += ", terminate notice " + shortDuration(time.Duration(spec.TerminateNotice))
	}
	return s
}

// deleteScope plans the deletion of an empty scope absent from the file.
func deleteScope(s *forewarn.Scope) step {
	name := s.Name
	return step{
		Change: Change{Action: ActionDelete, Kind: KindScope, Name: name, Detail: string(s.Kind)},
		do: func(ctx context.Context, fleet forewarn.Fleet) error {
			return fleet.DeleteScope(ctx, name)
		},
	}
}
