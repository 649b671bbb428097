package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// campaignTypes are the event types a campaign rolls out.
var campaignTypes = []forewarn.EventType{forewarn.Freeze, forewarn.Reboot, forewarn.Redeploy}

// maintenanceStartOptions are the flags of maintenance start.
type maintenanceStartOptions struct {
	admin          *adminOptions
	output         outputFormat
	eventType      string
	scopes         []string
	all            bool
	notice         durationValue
	duration       durationValue
	description    string
	parallelScopes int
}

func newMaintenanceStartCommand(a *adminOptions) *cobra.Command {
	o := &maintenanceStartOptions{admin: a}
	cmd := &cobra.Command{
		Use:   "start --type Freeze|Reboot|Redeploy (--scope S... | --all)",
		Short: "Start a campaign of platform maintenance: one event per update domain, in order, scope by scope",
		Long: "Start a campaign of platform maintenance. For each scope it walks the update\n" +
			"domains in order: one Platform event per update domain on its running VMs,\n" +
			"the next only once the previous has completed. Scopes proceed in parallel up\n" +
			"to --parallel-scopes. A scope that has not enabled Scheduled Events gets no\n" +
			"notice: its events start at once; the campaign says which.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			spec, err := o.spec()
			if err != nil {
				return err
			}
			return o.admin.withFleet(cmd.Context(), func(ctx context.Context, fleet forewarn.Fleet) error {
				c, err := fleet.StartCampaign(ctx, spec)
				if err != nil {
					return err
				}
				return printCampaignNotice(cmd.OutOrStdout(), o.output, c, o.noticeCell(c))
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.eventType, "type", "", "the event type: Freeze, Reboot or Redeploy")
	f.StringSliceVar(&o.scopes, "scope", nil, "a scope to walk (repeatable, or comma-separated)")
	f.BoolVar(&o.all, "all", false, "walk every scope")
	f.Var(&o.notice, "notice", "notice of each event (default and minimum: the type's, 15m for Freeze and Reboot, 10m for Redeploy)")
	f.Var(&o.duration, "duration", "impact each event shows as DurationInSeconds (default: the type's, Freeze 5s, others unknown)")
	f.StringVar(&o.description, "description", "", "description of each event (default: the real service's for the type)")
	f.IntVar(&o.parallelScopes, "parallel-scopes", 1, "scopes under way at once")
	addOutputFlag(cmd, &o.output)
	return cmd
}

// spec checks the flags and builds the request.
func (o *maintenanceStartOptions) spec() (forewarn.CampaignSpec, error) {
	typ, err := parseCampaignType(o.eventType)
	if err != nil {
		return forewarn.CampaignSpec{}, err
	}
	switch {
	case o.all && len(o.scopes) > 0:
		return forewarn.CampaignSpec{}, errors.New("give --scope or --all, not both")
	case !o.all && len(o.scopes) == 0:
		return forewarn.CampaignSpec{}, errors.New("no scope: give --scope S (repeatable) or --all")
	case o.parallelScopes < 1:
		return forewarn.CampaignSpec{}, fmt.Errorf("--parallel-scopes must be at least 1, not %d", o.parallelScopes)
	case o.duration != 0 && time.Duration(o.duration) < time.Second:
		return forewarn.CampaignSpec{}, fmt.Errorf("--duration must be at least 1s, not %s", forewarn.FormatDuration(time.Duration(o.duration)))
	}
	return forewarn.CampaignSpec{
		Type:           typ,
		Scopes:         o.scopes,
		All:            o.all,
		Notice:         forewarn.Duration(o.notice),
		Duration:       forewarn.Duration(o.duration),
		Description:    o.description,
		ParallelScopes: o.parallelScopes,
	}, nil
}

// noticeCell shows the notice the campaign's events get, which the server
// raises to the type's minimum, and says when it did: "15m0s (raised from
// 10m0s, the minimum for Reboot)".
func (o *maintenanceStartOptions) noticeCell(c *forewarn.Campaign) string {
	used, asked := c.Spec.Notice, forewarn.Duration(o.notice)
	switch {
	case used == 0: // a server that does not say
		return noticeCell(asked)
	case asked == 0:
		return fmt.Sprintf("%s (the minimum for %s)", used, c.Spec.Type)
	case asked < used:
		return fmt.Sprintf("%s (raised from %s, the minimum for %s)", used, asked, c.Spec.Type)
	}
	return used.String()
}

// parseCampaignType reads --type, case-insensitively.
func parseCampaignType(s string) (forewarn.EventType, error) {
	if s == "" {
		return "", errors.New("missing --type: Freeze, Reboot or Redeploy")
	}
	i := slices.IndexFunc(campaignTypes, func(t forewarn.EventType) bool { return strings.EqualFold(string(t), s) })
	if i < 0 {
		return "", fmt.Errorf("--type: %q is not Freeze, Reboot or Redeploy", s)
	}
	return campaignTypes[i], nil
}
