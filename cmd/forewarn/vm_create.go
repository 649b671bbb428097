package main

import (
	"context"

	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// vmCreateOptions are the flags of vm create.
type vmCreateOptions struct {
	admin        *adminOptions
	output       outputFormat
	scope        string
	updateDomain int
	faultDomain  int
	addresses    []string
	spot         bool
}

func newVMCreateCommand(a *adminOptions) *cobra.Command {
	o := &vmCreateOptions{admin: a}
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: "Create a VM (without --scope, a standalone VM: its own scope, named after it)",
		Args:  oneArg("NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := o.spec(cmd, args[0])
			if err != nil {
				return err
			}
			return o.admin.withFleet(cmd.Context(), func(ctx context.Context, fleet forewarn.Fleet) error {
				vm, err := fleet.CreateVM(ctx, spec)
				if err != nil {
					return err
				}
				return vmTable.printOne(cmd.OutOrStdout(), o.output, vm)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.scope, "scope", "", "the scope to join (default: a standalone VM)")
	f.IntVar(&o.updateDomain, "update-domain", 0, "update domain (default: assigned round-robin)")
	f.IntVar(&o.faultDomain, "fault-domain", 0, "fault domain (default: assigned round-robin)")
	f.StringSliceVar(&o.addresses, "address", nil, "an IP address the VM calls the metadata endpoint from (repeatable)")
	f.BoolVar(&o.spot, "spot", false, "a Spot VM, which may be evicted")
	addOutputFlag(cmd, &o.output)
	return cmd
}

// spec builds the request; domains not given are left to the server,
// which checks those given against the scope's counts.
func (o *vmCreateOptions) spec(cmd *cobra.Command, name string) (forewarn.VMSpec, error) {
	spec := forewarn.VMSpec{Name: name, Scope: o.scope, Addresses: o.addresses, Priority: forewarn.Regular}
	if cmd.Flags().Changed("update-domain") {
		if err := checkRange("--update-domain", o.updateDomain, 0, forewarn.MaxUpdateDomains-1); err != nil {
			return spec, err
		}
		spec.UpdateDomain = &o.updateDomain
	}
	if cmd.Flags().Changed("fault-domain") {
		if err := checkRange("--fault-domain", o.faultDomain, 0, forewarn.MaxFaultDomains-1); err != nil {
			return spec, err
		}
		spec.FaultDomain = &o.faultDomain
	}
	if o.spot {
		spec.Priority = forewarn.Spot
	}
	return spec, nil
}
