package main

import (
	"context"
	"fmt"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// scopeCreateOptions are the flags of scope create.
type scopeCreateOptions struct {
	admin           *adminOptions
	output          outputFormat
	kind            forewarn.ScopeKind
	updateDomains   int
	faultDomains    int
	terminateNotice durationValue
}

func newScopeCreateCommand(a *adminOptions) *cobra.Command {
	o := &scopeCreateOptions{admin: a, kind: forewarn.AvailabilitySet, terminateNotice: durationValue(forewarn.DefaultTerminateNotice)}
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: "Create a scope",
		Args:  oneArg("NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := o.spec(args[0])
			if err != nil {
				return err
			}
			return o.admin.withFleet(cmd.Context(), func(ctx context.Context, fleet forewarn.Fleet) error {
				s, err := fleet.CreateScope(ctx, spec)
				if err != nil {
					return err
				}
				return scopeTable.printOne(cmd.OutOrStdout(), o.output, s)
			})
		},
	}
	f := cmd.Flags()
	f.Var(&choiceValue[forewarn.ScopeKind]{&o.kind, scopeKinds}, "kind", "the kind of scope")
	f.IntVar(&o.updateDomains, "update-domains", forewarn.DefaultUpdateDomains,
		fmt.Sprintf("number of update domains (1 to %d)", forewarn.MaxUpdateDomains))
	f.IntVar(&o.faultDomains, "fault-domains", forewarn.DefaultFaultDomains,
		fmt.Sprintf("number of fault domains (1 to %d)", forewarn.MaxFaultDomains))
	f.Var(&o.terminateNotice, "terminate-notice", "notice of Terminate events (scale sets; 5m to 15m)")
	addOutputFlag(cmd, &o.output)
	return cmd
}

// scopeKinds are the kinds of scope that scope create makes (a standalone
// scope comes with its VM).
var scopeKinds = []forewarn.ScopeKind{forewarn.AvailabilitySet, forewarn.ScaleSet, forewarn.CloudService}

// spec checks the flags, naming the one at fault, and builds the request;
// a count of 0, which the API reads as "the default", is refused.
func (o *scopeCreateOptions) spec(name string) (forewarn.ScopeSpec, error) {
	if err := checkRange("--update-domains", o.updateDomains, 1, forewarn.MaxUpdateDomains); err != nil {
		return forewarn.ScopeSpec{}, err
	}
	if err := checkRange("--fault-domains", o.faultDomains, 1, forewarn.MaxFaultDomains); err != nil {
		return forewarn.ScopeSpec{}, err
	}
	if d := time.Duration(o.terminateNotice); !forewarn.ValidTerminateNotice(d) {
		return forewarn.ScopeSpec{}, fmt.Errorf("--terminate-notice must be from %s to %s, not %s",
			forewarn.FormatDuration(forewarn.MinTerminateNotice), forewarn.FormatDuration(forewarn.MaxTerminateNotice), forewarn.FormatDuration(d))
	}
	return forewarn.ScopeSpec{
		Name:            name,
		Kind:            o.kind,
		UpdateDomains:   o.updateDomains,
		FaultDomains:    o.faultDomains,
		TerminateNotice: forewarn.Duration(o.terminateNotice),
	}, nil
}
