package main

import (
	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// newMaintenanceCampaignsCommand returns "maintenance campaigns": every
// campaign, newest first, one line each.
func newMaintenanceCampaignsCommand(a *adminOptions) *cobra.Command {
	cmd := newListCommand(a, "List the campaigns, newest first, with their progress", campaignTable, forewarn.Fleet.Campaigns)
	cmd.Use = "campaigns"
	return cmd
}
