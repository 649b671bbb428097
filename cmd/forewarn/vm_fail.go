package main

import (
	"context"

	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// vmFailOptions are the flags of vm fail.
type vmFailOptions struct {
	admin  *adminOptions
	output outputFormat
}

func newVMFailCommand(a *adminOptions) *cobra.Command {
	o := &vmFailOptions{admin: a}
	cmd := &cobra.Command{
		Use:   "fail NAME",
		Short: "Fail a VM's hardware: a Platform Reboot, Started from its first appearance",
		Long: "Fail a VM's hardware: a Platform Reboot (\"Host server is undergoing an\n" +
			"emergency repair.\") that is Started from its first appearance, with no notice.\n" +
			"It is allowed while the VM has another event in flight.",
		Args: oneArg("NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.admin.withFleet(cmd.Context(), func(ctx context.Context, fleet forewarn.Fleet) error {
				e, err := fleet.Fail(ctx, args[0])
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
