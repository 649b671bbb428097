package main

import (
	"context"
	"fmt"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// vmDegradeOptions are the flags of vm degrade.
type vmDegradeOptions struct {
	admin  *adminOptions
	output outputFormat
	notice durationValue
}

func newVMDegradeCommand(a *adminOptions) *cobra.Command {
	o := &vmDegradeOptions{admin: a, notice: durationValue(forewarn.DefaultDegradeNotice)}
	cmd := &cobra.Command{
		Use:   "degrade NAME [--notice D]",
		Short: "Degrade a VM's hardware: a Platform Redeploy with days of notice",
		Args:  oneArg("NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.notice == 0 {
				return fmt.Errorf("--notice must be more than 0")
			}
			return o.admin.withFleet(cmd.Context(), func(ctx context.Context, fleet forewarn.Fleet) error {
				e, err := fleet.Degrade(ctx, args[0], time.Duration(o.notice))
				if err != nil {
					return err
				}
				return printEvent(cmd.OutOrStdout(), o.output, e)
			})
		},
	}
	cmd.Flags().Var(&o.notice, "notice", "notice of the Redeploy (less than the type's minimum, 10m, gives 10m)")
	addOutputFlag(cmd, &o.output)
	return cmd
}
