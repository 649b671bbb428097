package fleetfile

import (
	"context"
	"fmt"

	"github.com/forewarn/forewarn"
)

// Apply brings the fleet to the file: it plans, refuses the whole file if
// the plan has any conflict (an error wrapping forewarn.ErrConflict that
// lists them all, and nothing changed), then makes the changes in the
// order of the plan. It returns every change of the plan, unchanged ones
// included. If a call fails midway it returns the changes made up to it
// and the error.
func Apply(ctx context.Context, fleet forewarn.Fleet, f *File, prune bool) ([]Change, error) {
	steps, err := plan(ctx, fleet, f, prune)
	if err != nil {
		return nil, err
	}
	if err := conflictError(f.Name, steps); err != nil {
		return nil, err
	}
	done := make([]Change, 0, len(steps))
	for _, s := range steps {
		if s.do != nil {
			if err := ctx.Err(); err != nil {
				return done, fmt.Errorf("apply %s: %w", f.Name, err)
			}
			if err := s.do(ctx, fleet); err != nil {
				return done, fmt.Errorf("apply %s: %s %s %s: %w", f.Name, s.Action, s.Kind, s.Name, err)
			}
		}
		done = append(done, s.Change)
	}
	return done, nil
}
