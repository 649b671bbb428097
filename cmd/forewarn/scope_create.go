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
	kind            string
	updateDomains   int
	faultDomains    int
	terminateNotice durationValue
}

func newScopeCreateCommand(a *adminOptions) *cobra.Command {
	o := &scopeCreateOptions{admin: a, terminateNotice: durationValue(5 * time.Minute)}
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
	f.StringVar(&o.kind, "kind", string(forewarn.AvailabilitySet), "availability-set, scale-set or cloud-service")
	f.IntVar(&o.updateDomains, "update-domains", 5, "number of update domains")
	f.IntVar(&o.faultDomains, "fault-domains", 3, "number of fault domains")
	f.Var(&o.terminateNotice, "terminate-notice", "notice of Terminate events (scale sets; 5m to 15m)")
	addOutputFlag(cmd, &o.output)
	return cmd
}

// spec builds the request. The server checks the values; here a count of 0,
// which the API reads as "the default", is refused.
func (o *scopeCreateOptions) spec(name string) (forewarn.ScopeSpec, error) {
	for _, c := range []struct {
		flag string
		n    int
	}{{"update-domains", o.updateDomains}, {"fault-domains", o.faultDomains}} {
		if c.n < 1 {
			return forewarn.ScopeSpec{}, fmt.Errorf("--%s must be at least 1, not %d", c.flag, c.n)
		}
	}
	if o.terminateNotice == 0 {
		return forewarn.ScopeSpec{}, fmt.Errorf("--terminate-notice must be more than 0")
	}
	return forewarn.ScopeSpec{
		Name:            name,
		Kind:            forewarn.ScopeKind(o.kind),
		UpdateDomains:   o.updateDomains,
		FaultDomains:    o.faultDomains,
		TerminateNotice: forewarn.Duration(o.terminateNotice),
	}, nil
}
