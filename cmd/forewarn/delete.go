package main

import (
	"context"
	"fmt"

	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// newDeleteCommand returns "delete <arg>" for a kind of item ("scope",
// "vm") named by arg ("NAME", "ID"), deleted by del; it prints a line
// saying what it deleted.
func newDeleteCommand(a *adminOptions, noun, arg, short string,
	del func(forewarn.Fleet, context.Context, string) error) *cobra.Command {
	return &cobra.Command{
		Use:   "delete " + arg,
		Short: short,
		Args:  oneArg(arg),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withFleet(cmd.Context(), func(ctx context.Context, fleet forewarn.Fleet) error {
				if err := del(fleet, ctx, args[0]); err != nil {
					return err
				}
				_, err := fmt.Fprintf(cmd.OutOrStdout(), "deleted %s %s\n", noun, args[0])
				return err
			})
		},
	}
}
