package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/fleetfile"
)

// loadFleet reads and checks the --fleet file, or returns nil without one.
func (o *serveOptions) loadFleet() (*fleetfile.File, error) {
	if o.fleet == "" {
		return nil, nil
	}
	file, err := fleetfile.Load(o.fleet)
	if err != nil {
		return nil, fmt.Errorf("--fleet: %w", oneLine(err))
	}
	return file, nil
}

// applyFleet applies the --fleet file, without pruning, and logs what it
// changed. Replicas that start together race to create the same scopes and
// VMs: the loser of a race (ErrConflict) plans again against what the
// winner made. Each lost race is over one scope or VM another replica
// made, which the next plan sees: the same conflict twice is a real one,
// and there are at most as many races as the file declares scopes and VMs.
func applyFleet(ctx context.Context, fleet forewarn.Fleet, file *fleetfile.File, log *slog.Logger) error {
	if file == nil {
		return nil
	}
	declared := len(file.Scopes) + len(file.VMs)
	for _, sc := range file.Scopes {
		declared += len(sc.VMs)
	}
	created, attempts := 0, 1+declared
	lastConflict := ""
	for attempt := 1; ; attempt++ {
		changes, err := fleetfile.Apply(ctx, fleet, file, false)
		for _, c := range changes {
			if c.Action == fleetfile.ActionCreate {
				created++
			}
			if c.Action != fleetfile.ActionUnchanged {
				log.Info("fleet", "change", c.String())
			}
		}
		switch {
		case err == nil:
			log.Info("fleet applied", "file", file.Name, "created", created, "unchanged", declared-created)
			return nil
		case errors.Is(err, forewarn.ErrConflict) && attempt < attempts && err.Error() != lastConflict:
			lastConflict = err.Error()
			log.Debug("fleet changed while applying the file; planning again", "err", err)
		default:
			return fmt.Errorf("--fleet: %w", oneLine(err))
		}
	}
}
