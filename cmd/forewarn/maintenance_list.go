package main

import (
	"context"

	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// maintenanceListOptions are the flags of maintenance list.
type maintenanceListOptions struct {
	admin  *adminOptions
	output outputFormat
	query  forewarn.EventQuery
	page   pageOptions
}

func newMaintenanceListCommand(a *adminOptions) *cobra.Command {
	o := &maintenanceListOptions{admin: a}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the events in flight of the fleet, oldest first, every one or a page at a time",
		Args:  cobra.NoArgs,
		RunE:  o.runE,
	}
	addOutputFlag(cmd, &o.output)
	f := cmd.Flags()
	f.StringVar(&o.query.Scope, "scope", "", "only this scope")
	f.Var(&choiceValue[forewarn.EventType]{&o.query.Type, forewarn.EventTypes}, "type", "only this type")
	f.Var(&choiceValue[forewarn.EventStatus]{&o.query.Status, forewarn.EventStatuses}, "status", "only this status")
	f.Var(&choiceValue[forewarn.Source]{&o.query.Source, forewarn.Sources}, "source", "only this source")
	addPageFlags(cmd, &o.page, "events")
	return cmd
}

// runE lists the events the flags select.
func (o *maintenanceListOptions) runE(cmd *cobra.Command, _ []string) error {
	if err := o.page.check(); err != nil {
		return err
	}
	q := o.query
	q.After, q.Limit = o.page.after, o.page.limit
	return o.admin.withFleet(cmd.Context(), func(ctx context.Context, fleet forewarn.Fleet) error {
		events, next, err := fleet.Events(ctx, q)
		if err != nil {
			return err
		}
		return printPage(cmd, o.output, eventTable, events, next)
	})
}
