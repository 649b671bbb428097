package main

import (
	"context"

	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// eventActionOptions are the flags of maintenance approve and cancel.
type eventActionOptions struct {
	admin  *adminOptions
	output outputFormat
	act    func(forewarn.Fleet, context.Context, string) (*forewarn.Event, error)
}

// newEventActionCommand returns "maintenance <name> ID", which applies act
// to one event and prints the event act returns.
func newEventActionCommand(a *adminOptions, name, short string,
	act func(forewarn.Fleet, context.Context, string) (*forewarn.Event, error)) *cobra.Command {
	o := &eventActionOptions{admin: a, act: act}
	cmd := &cobra.Command{
		Use:   name + " ID",
		Short: short,
		Args:  oneArg("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.admin.withFleet(cmd.Context(), func(ctx context.Context, fleet forewarn.Fleet) error {
				e, err := o.act(fleet, ctx, args[0])
				if err != nil {
					return err
				}
				return eventTable.printOne(cmd.OutOrStdout(), o.output, e)
			})
		},
	}
	addOutputFlag(cmd, &o.output)
	return cmd
}
