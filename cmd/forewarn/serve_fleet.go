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

// applyFleet applies the --fleet file, if there is one, as
// fleetfile.ApplyRetrying does: without pruning, logging what it changed,
// planning again after a race with another replica starting with it.
func applyFleet(ctx context.Context, fleet forewarn.Fleet, file *fleetfile.File, log *slog.Logger) error {
	if file == nil {
		return nil
	}
	if err := fleetfile.ApplyRetrying(ctx, fleet, file, log); err != nil {
		return fmt.Errorf("--fleet: %w", oneLine(err))
	}
	return nil
}
