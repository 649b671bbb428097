package main

import (
	"context"
	"fmt"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
	"github.com/spf13/cobra"
)

// defaultHistoryLimit is the page maintenance history prints unless
// --limit says otherwise, as the admin API's.
const defaultHistoryLimit = 100

// maintenanceHistoryOptions are the flags of maintenance history.
type maintenanceHistoryOptions struct {
	admin  *adminOptions
	output outputFormat
	page   pageOptions
}

func newMaintenanceHistoryCommand(a *adminOptions) *cobra.Command {
	o := &maintenanceHistoryOptions{admin: a}
	cmd := &cobra.Command{
		Use:   "history",
		Short: fmt.Sprintf("List finished and cancelled events, newest first, a page of %d unless --limit says otherwise", defaultHistoryLimit),
		Args:  cobra.NoArgs,
		RunE:  o.runE,
	}
	f := cmd.Flags()
	f.IntVar(&o.page.limit, "limit", defaultHistoryLimit, fmt.Sprintf(
		"print one page of at most this many events (1 to %d) and, on stderr, the command for the next", admin.MaxListLimit))
	f.StringVar(&o.page.after, "after", "", "begin after this cursor, which the previous page printed")
	addOutputFlag(cmd, &o.output)
	return cmd
}

// runE prints the page of the history the flags ask for.
func (o *maintenanceHistoryOptions) runE(cmd *cobra.Command, _ []string) error {
	if err := checkRange("--limit", o.page.limit, 1, admin.MaxListLimit); err != nil {
		return err
	}
	q := forewarn.HistoryQuery{After: o.page.after, Limit: o.page.limit}
	return o.admin.withFleet(cmd.Context(), func(ctx context.Context, fleet forewarn.Fleet) error {
		events, next, err := fleet.HistoryPage(ctx, q)
		if err != nil {
			return err
		}
		return printPage(cmd, o.output, historyTable, events, next)
	})
}
