package main

import (
	"context"

	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// showOptions are the flags of a "show" command.
type showOptions[T any] struct {
	admin  *adminOptions
	output outputFormat
	table  table[T]
	get    func(forewarn.Fleet, context.Context, string) (T, error)
}

// newShowCommand returns "show NAME": the item get returns, printed by tbl.
func newShowCommand[T any](a *adminOptions, short string, tbl table[T],
	get func(forewarn.Fleet, context.Context, string) (T, error)) *cobra.Command {
	o := &showOptions[T]{admin: a, table: tbl, get: get}
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: short,
		Args:  oneArg("NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.admin.withFleet(cmd.Context(), func(ctx context.Context, fleet forewarn.Fleet) error {
				item, err := o.get(fleet, ctx, args[0])
				if err != nil {
					return err
				}
				return o.table.printOne(cmd.OutOrStdout(), o.output, item)
			})
		},
	}
	addOutputFlag(cmd, &o.output)
	return cmd
}
