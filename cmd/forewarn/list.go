package main

import (
	"context"

	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// listOptions are the flags of a listing from the admin API.
type listOptions[T any] struct {
	admin  *adminOptions
	output outputFormat
	scope  string
	table  table[T]
	list   func(forewarn.Fleet, context.Context, string) ([]T, error)
}

// newListCommand returns a "list" command that prints what list returns
// with tbl. With scoped, --scope S narrows the list to one scope (list gets
// "" for every scope); without, list's string argument is always "".
func newListCommand[T any](a *adminOptions, short string, tbl table[T], scoped bool,
	list func(forewarn.Fleet, context.Context, string) ([]T, error)) *cobra.Command {
	o := &listOptions[T]{admin: a, table: tbl, list: list}
	cmd := &cobra.Command{
		Use:   "list",
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.admin.withFleet(cmd.Context(), func(ctx context.Context, fleet forewarn.Fleet) error {
				items, err := o.list(fleet, ctx, o.scope)
				if err != nil {
					return err
				}
				return o.table.printList(cmd.OutOrStdout(), o.output, items)
			})
		},
	}
	addOutputFlag(cmd, &o.output)
	if scoped {
		cmd.Flags().StringVar(&o.scope, "scope", "", "only this scope")
	}
	return cmd
}
