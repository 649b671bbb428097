package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// oneArg accepts exactly one positional argument, the thing named what
// ("NAME", "ID"), with an error that shows the usage otherwise.
func oneArg(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch len(args) {
		case 1:
			return nil
		case 0:
			return fmt.Errorf("missing %s (usage: %s)", what, cmd.UseLine())
		}
		return fmt.Errorf("takes one %s, got %d arguments (usage: %s)", what, len(args), cmd.UseLine())
	}
}

// newGroupCommand returns a command that only groups subcommands: alone it
// prints its help; with an argument that names no subcommand it fails
// (cobra would otherwise print the help and succeed).
func newGroupCommand(use, short string) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath())
		},
	}
}
