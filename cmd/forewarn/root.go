package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// run executes the command line and returns the exit code; errors print
// one line on stderr.
func run(ctx context.Context, args []string) int {
	cmd := newRootCommand()
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintln(os.Stderr, "forewarn:", err)
	if e, ok := errors.AsType[*exitError](err); ok {
		return e.code
	}
	return 1
}

// exitError is an error with the exit status it calls for; any other error
// exits 1.
type exitError struct {
	code int
	err  error
}

// exitCode gives err the exit status code.
func exitCode(code int, err error) error { return &exitError{code: code, err: err} }

func (e *exitError) Error() string { return e.err.Error() }

// exitCodeArgs gives the errors of an argument check the exit status code.
func exitCodeArgs(code int, args cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := args(cmd, a); err != nil {
			return exitCode(code, err)
		}
		return nil
	}
}
func (e *exitError) Unwrap() error { return e.err }

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
		newDrillCommand(),
		newVersionCommand(),
	)
	return cmd
}
