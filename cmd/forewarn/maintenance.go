package main

import (
	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// newMaintenanceCommand groups the operator's commands on events and
// campaigns: the admin view of every scope.
func newMaintenanceCommand() *cobra.Command {
	a := &adminOptions{}
	cmd := newGroupCommand("maintenance",
		"List, approve, cancel and resolve the events of the fleet; run campaigns of platform maintenance; show the history")
	addAdminFlags(cmd, a)
	cmd.AddCommand(
		newMaintenanceListCommand(a),
		newEventActionCommand(a, "approve", "Approve an event as the admin: a Scheduled event starts at once", forewarn.Fleet.Approve),
		newEventActionCommand(a, "cancel", "Cancel a Scheduled event", forewarn.Fleet.Cancel),
		newMaintenanceResolveCommand(a),
		newMaintenanceHistoryCommand(a),
		newMaintenanceStartCommand(a),
		newMaintenanceCampaignsCommand(a),
		newCampaignCommand(a),
	)
	return cmd
}
