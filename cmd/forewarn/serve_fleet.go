package main

import (
	"context"
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
// changed.
func applyFleet(ctx context.Context, fleet forewarn.Fleet, file *fleetfile.File, log *slog.Logger) error {
	if file == nil {
		return nil
	}
	changes, err := fleetfile.Apply(ctx, fleet, file, false)
	counts := map[string]int{}
	for _, c := range changes {
		counts[c.Action]++
		if c.Action != fleetfile.ActionUnchanged {
			log.Info("fleet", "change", c.String())
		}
	}
	if err != nil {
		return fmt.Errorf("--fleet: %w", oneLine(err))
	}
	log.Info("fleet applied", "file", file.Name,
		"created", counts[fleetfile.ActionCreate], "unchanged", counts[fleetfile.ActionUnchanged])
	return nil
}
