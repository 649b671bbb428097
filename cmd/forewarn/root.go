package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// run executes the command line and returns the exit code; errors print
// one line on stderr.
func run(ctx context.Context, args []string) int {
	cmd := newRootCommand()
	cmd.SetArgs(args)
	if err := cmd.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "forewarn:", err)
		return 1
	}
	return 0
}

func newRootCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:           "forewarn",
		Short:         "Scheduled Events, self-hosted: metadata endpoint, control plane, CLI",
		SilenceUsage:  true,
		SilenceErrors: true,
		// An unknown command fails on one line with suggestions, as in
		// every group of commands.
		Args: cobra.ArbitraryArgs,
		RunE: runGroup,
	}
	cmd.AddCommand(
		newServeCommand(),
		newScopeCommand(),
		newVMCommand(),
		newMaintenanceCommand(),
		newChaosCommand(),
		newApplyCommand(),
		newEventsCommand(),
		newAgentCommand(),
		newStatusCommand(),
		newVersionCommand(),
	)
	return cmd
}
