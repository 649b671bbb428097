package main

import (
	"context"

	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// newCampaignCommand groups the commands on one campaign: show and steer.
func newCampaignCommand(a *adminOptions) *cobra.Command {
	cmd := newGroupCommand("campaign", "Show, pause, resume or cancel a campaign")
	cmd.AddCommand(
		newCampaignActionCommand(a, "show", "Show a campaign and its progress, scope by scope", showCampaign),
		newCampaignActionCommand(a, "pause", "Pause a campaign: no new events (those in flight go on)", steerCampaign(forewarn.PauseCampaign)),
		newCampaignActionCommand(a, "resume", "Resume a paused campaign", steerCampaign(forewarn.ResumeCampaign)),
		newCampaignActionCommand(a, "cancel", "Cancel a campaign and its Scheduled events (started ones go on)", steerCampaign(forewarn.CancelCampaign)),
	)
	return cmd
}

// newCampaignActionCommand returns "campaign <name> ID", which applies act
// to a campaign and prints the campaign it returns.
func newCampaignActionCommand(a *adminOptions, name, short string,
	act func(forewarn.Fleet, context.Context, string) (*forewarn.Campaign, error)) *cobra.Command {
	return newActionCommand(a, name, short, act, printCampaign)
}

func showCampaign(fleet forewarn.Fleet, ctx context.Context, id string) (*forewarn.Campaign, error) {
	return fleet.Campaign(ctx, id)
}

// steerCampaign returns the act of a campaign command that steers it.
func steerCampaign(action forewarn.CampaignAction) func(forewarn.Fleet, context.Context, string) (*forewarn.Campaign, error) {
	return func(fleet forewarn.Fleet, ctx context.Context, id string) (*forewarn.Campaign, error) {
		return fleet.SteerCampaign(ctx, id, action)
	}
}
