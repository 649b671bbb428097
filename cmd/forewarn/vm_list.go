package main

import (
	"context"
	"fmt"

	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// vmListOptions are the flags of vm list.
type vmListOptions struct {
	admin        *adminOptions
	output       outputFormat
	query        forewarn.VMQuery
	updateDomain int
	page         pageOptions
}

func newVMListCommand(a *adminOptions) *cobra.Command {
	o := &vmListOptions{admin: a}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the VMs in name order, every one or a page at a time",
		Args:  cobra.NoArgs,
		RunE:  o.runE,
	}
	addOutputFlag(cmd, &o.output)
	f := cmd.Flags()
	f.StringVar(&o.query.Scope, "scope", "", "only this scope")
	f.IntVar(&o.updateDomain, "update-domain", 0, fmt.Sprintf("only this update domain (0 to %d)", forewarn.MaxUpdateDomains-1))
	f.Var(&choiceValue[forewarn.Priority]{&o.query.Priority, forewarn.Priorities}, "priority", "only this priority")
	addPageFlags(cmd, &o.page, "VMs")
	return cmd
}

// runE lists the VMs the flags select.
func (o *vmListOptions) runE(cmd *cobra.Command, _ []string) error {
	if err := o.page.check(); err != nil {
		return err
	}
	q := o.query
	if cmd.Flags().Changed("update-domain") {
		if err := checkRange("--update-domain", o.updateDomain, 0, forewarn.MaxUpdateDomains-1); err != nil {
			return err
		}
		q.UpdateDomain = &o.updateDomain
	}
	q.After, q.Limit = o.page.after, o.page.limit
	return o.admin.withFleet(cmd.Context(), func(ctx context.Context, fleet forewarn.Fleet) error {
		vms, next, err := fleet.VMs(ctx, q)
		if err != nil {
			return err
		}
		return printPage(cmd, o.output, vmTable, vms, next)
	})
}
