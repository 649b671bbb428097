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
	table  table[T]
	list   func(forewarn.Fleet, context.Context) ([]T, error)
}

// newListCommand returns a "list" command that prints what list returns
// with tbl: the short listings that have neither filters nor pages (vm
// list and maintenance list have their own commands).
func newListCommand[T any](a *adminOptions, short string, tbl table[T],
	list func(forewarn.Fleet, context.Context) ([]T, error)) *cobra.Command {
	o := &listOptions[T]{admin: a, table: tbl, list: list}
	cmd := &cobra.Command{
		Use:   "list",
		Short: short,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.admin.withFleet(cmd.Context(), func(ctx context.Context, fleet forewarn.Fleet) error {
				items, err := o.list(fleet, ctx)
				if err != nil {
					return err
				}
				return o.table.printList(cmd.OutOrStdout(), o.output, items)
			})
		},
	}
	addOutputFlag(cmd, &o.output)
	return cmd
}
