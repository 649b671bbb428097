package fleetfile

import (
	"context"
	"errors"
	"log/slog"

	"github.com/forewarn/forewarn"
)

// ApplyRetrying applies the file to the fleet as a server does when it
// starts with it: without pruning, logging to log each change it makes
// ("fleet") and, at the end, how many scopes and VMs it created and how
// many were there already ("fleet applied").
//
// Replicas that start together race to create the same scopes and VMs:
// the loser of a race (forewarn.ErrConflict) plans again against what the
// winner made. Each lost race is over one scope or VM another replica
// made, which the next plan sees: the same conflict twice is a real one,
// and there are at most as many races as the file declares scopes and
// VMs. ApplyRetrying returns Apply's error once it is not such a race.
func ApplyRetrying(ctx context.Context, fleet forewarn.Fleet, f *File, log *slog.Logger) error {
	declared := f.declared()
	created, attempts := 0, 1+declared
	lastConflict := ""
	for attempt := 1; ; attempt++ {
		changes, err := Apply(ctx, fleet, f, false)
		created += logChanges(log, changes)
		switch {
		case err == nil:
			log.Info("fleet applied", "file", f.Name, "created", created, "unchanged", declared-created)
			return nil
		case errors.Is(err, forewarn.ErrConflict) && attempt < attempts && err.Error() != lastConflict:
			lastConflict = err.Error()
			log.Debug("fleet changed while applying the file; planning again", "err", err)
		default:
			return err
		}
	}
}

// declared counts the scopes and VMs the file declares, standalone VMs
// once each.
func (f *File) declared() int {
	n := len(f.Scopes) + len(f.VMs)
	for _, sc := range f.Scopes {
		n += len(sc.VMs)
	}
	return n
}

// logChanges logs the changes that changed something and returns how many
// of them created a scope or VM.
func logChanges(log *slog.Logger, changes []Change) (created int) {
	for _, c := range changes {
		if c.Action == ActionCreate {
			created++
		}
		if c.Action != ActionUnchanged {
			log.Info("fleet", "change", c.String())
		}
	}
	return created
}
