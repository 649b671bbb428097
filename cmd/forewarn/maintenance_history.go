package main

import (
	"context"
	"fmt"

	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// maintenanceHistoryOptions are the flags of maintenance history.
type maintenanceHistoryOptions struct {
	admin  *adminOptions
	output outputFormat
	limit  int
}

func newMaintenanceHistoryCommand(a *adminOptions) *cobra.Command {
	o := &maintenanceHistoryOptions{admin: a}
	cmd := &cobra.Command{
		Use:   "history",
		Short: "List finished and cancelled events, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.limit < 1 {
				return fmt.Errorf("--limit must be at least 1, not %d", o.limit)
			}
			return o.admin.withFleet(cmd.Context(), func(ctx context.Context, fleet forewarn.Fleet) error {
				events, err := fleet.History(ctx, o.limit)
				if err != nil {
					return err
				}
				return historyTable.printList(cmd.OutOrStdout(), o.output, events)
			})
		},
	}
	cmd.Flags().IntVar(&o.limit, "limit", 100, "at most this many events")
	addOutputFlag(cmd, &o.output)
	return cmd
}
