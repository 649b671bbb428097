package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// chaosAddOptions are the flags of chaos add.
type chaosAddOptions struct {
	admin    *adminOptions
	output   outputFormat
	scope    string
	vm       string
	all      bool
	status   int
	delay    durationValue
	fraction float64
	duration durationValue
	// given are the flags given on the command line: a zero value given
	// is wrong, not missing.
	given func(name string) bool
}

func newChaosAddCommand(a *adminOptions) *cobra.Command {
	o := &chaosAddOptions{admin: a, given: func(string) bool { return false }}
	cmd := &cobra.Command{
		Use:   "add (--scope S | --vm V | --all) (--status 410|429|500 | --delay D) [--fraction F] --for D",
		Short: "Make the metadata endpoint answer an error, or answer late, for a fraction of a scope's or a VM's requests, for a while",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.given = cmd.Flags().Changed
			spec, err := o.spec()
			if err != nil {
				return err
			}
			return o.admin.withFleet(cmd.Context(), func(ctx context.Context, fleet forewarn.Fleet) error {
				r, err := fleet.AddChaos(ctx, spec)
				if err != nil {
					return err
				}
				return chaosTable.printOne(cmd.OutOrStdout(), o.output, r)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.scope, "scope", "", "the requests of this scope's VMs")
	f.StringVar(&o.vm, "vm", "", "the requests of this VM")
	f.BoolVar(&o.all, "all", false, "the requests of every VM")
	f.IntVar(&o.status, "status", 0, "answer this status: 410, 429 or 500")
	f.Var(&o.delay, "delay", "hold the answer this long instead")
	f.Float64Var(&o.fraction, "fraction", 1, "fraction of the matching requests hit: more than 0, at most 1")
	f.Var(&o.duration, "for", "how long the fault lasts, at most 7d")
	addOutputFlag(cmd, &o.output)
	return cmd
}

// spec checks the flags and builds the request.
func (o *chaosAddOptions) spec() (forewarn.ChaosSpec, error) {
	targets := 0
	for _, set := range []bool{o.scope != "", o.vm != "", o.all} {
		if set {
			targets++
		}
	}
	switch {
	case targets != 1:
		return forewarn.ChaosSpec{}, errors.New("give exactly one of --scope, --vm or --all")
	case o.given("delay") && o.delay <= 0:
		return forewarn.ChaosSpec{}, fmt.Errorf("--delay must be more than 0, not %s", forewarn.FormatDuration(time.Duration(o.delay)))
	case time.Duration(o.delay) > forewarn.MaxChaosDelay:
		return forewarn.ChaosSpec{}, fmt.Errorf("--delay must be at most %s, not %s",
			forewarn.FormatDuration(forewarn.MaxChaosDelay), forewarn.FormatDuration(time.Duration(o.delay)))
	case o.given("for") && o.duration <= 0:
		return forewarn.ChaosSpec{}, fmt.Errorf("--for must be more than 0, not %s", forewarn.FormatDuration(time.Duration(o.duration)))
	case (o.status != 0) == (o.delay != 0):
		return forewarn.ChaosSpec{}, errors.New("give exactly one of --status or --delay")
	case o.status != 0 && !slices.Contains(forewarn.ChaosStatuses, o.status):
		return forewarn.ChaosSpec{}, fmt.Errorf("--status: %d is not 410, 429 or 500", o.status)
	case !(o.fraction > 0 && o.fraction <= 1):
		return forewarn.ChaosSpec{}, fmt.Errorf("--fraction must be more than 0 and at most 1, not %g", o.fraction)
	case o.duration == 0:
		return forewarn.ChaosSpec{}, errors.New("missing --for: how long the fault lasts, such as 10m")
	case time.Duration(o.duration) > forewarn.MaxChaosFor:
		return forewarn.ChaosSpec{}, fmt.Errorf("--for must be at most %s, not %s",
			forewarn.FormatDuration(forewarn.MaxChaosFor), forewarn.FormatDuration(time.Duration(o.duration)))
	}
	return forewarn.ChaosSpec{
		Scope:    o.scope,
		VM:       o.vm,
		Status:   o.status,
		Delay:    forewarn.Duration(o.delay),
		Fraction: o.fraction,
		For:      forewarn.Duration(o.duration),
	}, nil
}
