package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// actionOptions are the flags of the commands that act on one resource by
// its ID and print it: maintenance approve and cancel, maintenance
// campaign show, pause, resume and cancel.
type actionOptions[T any] struct {
	admin  *adminOptions
	output outputFormat
	act    func(forewarn.Fleet, context.Context, string) (T, error)
	print  func(io.Writer, outputFormat, T) error
}

// newActionCommand returns "<name> ID", which applies act to the resource
// with that ID and prints what act returns.
func newActionCommand[T any](a *adminOptions, name, short string,
	act func(forewarn.Fleet, context.Context, string) (T, error),
	print func(io.Writer, outputFormat, T) error) *cobra.Command {
	o := &actionOptions[T]{admin: a, act: act, print: print}
	cmd := &cobra.Command{
		Use:   name + " ID",
		Short: short,
		Args:  oneArg("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.admin.withFleet(cmd.Context(), func(ctx context.Context, fleet forewarn.Fleet) error {
				v, err := o.act(fleet, ctx, args[0])
				if err != nil {
					return err
				}
				return o.print(cmd.OutOrStdout(), o.output, v)
			})
		},
	}
	addOutputFlag(cmd, &o.output)
	return cmd
}

// newEventActionCommand returns "maintenance <name> ID", which applies act
// to one event and prints the event act returns (printEvent).
func newEventActionCommand(a *adminOptions, name, short string,
	act func(forewarn.Fleet, context.Context, string) (*forewarn.Event, error)) *cobra.Command {
	inFlight := func(fleet forewarn.Fleet, ctx context.Context, id string) (*forewarn.Event, error) {
		e, err := act(fleet, ctx, id)
		return e, explainEnded(err)
	}
	return newActionCommand(a, name, short, inFlight, printEvent)
}

// explainEnded adds to an event that is not found where one that ended is.
func explainEnded(err error) error {
	if errors.Is(err, forewarn.ErrNotFound) {
		return fmt.Errorf("%w (not in flight: an event that has ended is in maintenance history)", err)
	}
	return err
}
