package main

import (
	"context"

	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// vmOperationOptions are the flags of vm restart, redeploy, evict and
// terminate.
type vmOperationOptions struct {
	admin  *adminOptions
	output outputFormat
	op     forewarn.Operation
}

// newVMOperationCommand returns "vm <op> NAME", which runs the user
// operation op on a VM and prints the event it created.
func newVMOperationCommand(a *adminOptions, op forewarn.Operation, short string) *cobra.Command {
	o := &vmOperationOptions{admin: a, op: op}
	cmd := &cobra.Command{
		Use:   string(op) + " NAME",
		Short: short,
		Args:  oneArg("NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.admin.withFleet(cmd.Context(), func(ctx context.Context, fleet forewarn.Fleet) error {
				e, err := fleet.Operate(ctx, args[0], o.op)
				if err != nil {
					return err
				}
				return printEvent(cmd.OutOrStdout(), o.output, e)
			})
		},
	}
	addOutputFlag(cmd, &o.output)
	return cmd
}
