package main

import (
	"context"
	"errors"

	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// maintenanceResolveOptions are the flags of maintenance resolve.
type maintenanceResolveOptions struct {
	admin    *adminOptions
	output   outputFormat
	complete bool
	retry    bool
	force    bool
}

func newMaintenanceResolveCommand(a *adminOptions) *cobra.Command {
	o := &maintenanceResolveOptions{admin: a}
	cmd := &cobra.Command{
		Use:   "resolve ID --complete|--retry",
		Short: "Settle a Started event whose actuation failed on some VMs (FAILED in maintenance list)",
		Long: "Settle a Started event whose exec actuation failed for good on some VMs, which\n" +
			"maintenance list shows under FAILED: --complete completes the event as it is,\n" +
			"--retry runs the command again on the failed VMs. An event with no failed VM\n" +
			"completes by itself and is refused, unless --complete --force cuts it short.",
		Args: oneArg("ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			action, err := o.action()
			if err != nil {
				return err
			}
			return o.admin.withFleet(cmd.Context(), func(ctx context.Context, fleet forewarn.Fleet) error {
				e, err := fleet.Resolve(ctx, args[0], forewarn.Resolution{Action: action, Force: o.force})
				if err != nil {
					return explainEnded(err)
				}
				return printEvent(cmd.OutOrStdout(), o.output, e)
			})
		},
	}
	cmd.Flags().BoolVar(&o.complete, "complete", false, "complete the event: the failed VMs are taken as done")
	cmd.Flags().BoolVar(&o.retry, "retry", false, "run the actuator again on the failed VMs")
	cmd.Flags().BoolVar(&o.force, "force", false, "with --complete: complete an event whose actuation has not failed")
	addOutputFlag(cmd, &o.output)
	return cmd
}

// action returns the resolve action the flags ask for: exactly one.
func (o *maintenanceResolveOptions) action() (forewarn.ResolveAction, error) {
	switch {
	case o.complete && o.retry:
		return "", errors.New("give --complete or --retry, not both")
	case o.force && !o.complete:
		return "", errors.New("--force goes with --complete")
	case o.complete:
		return forewarn.ResolveComplete, nil
	case o.retry:
		return forewarn.ResolveRetry, nil
	}
	return "", errors.New("say how to resolve the event: --complete or --retry")
}
