package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// newVersionCommand returns "version": the version, revision, build time
// and Go version of this binary.
func newVersionCommand() *cobra.Command {
	var output outputFormat
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print forewarn's version, revision, build time and Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output == outputJSON {
				return writeJSON(cmd.OutOrStdout(), build)
			}
			return printBuild(cmd.OutOrStdout(), build)
		},
	}
	addOutputFlag(cmd, &output)
	return cmd
}

// printBuild writes "forewarn VERSION", then one line per field it knows.
func printBuild(w io.Writer, b buildInfo) error {
	fmt.Fprintf(w, "forewarn %s\n", b.Version)
	if b.Revision != "" {
		modified := ""
		if b.Modified {
			modified = " (modified)"
		}
		fmt.Fprintf(w, "  revision:    %s%s\n", b.Revision, modified)
	}
	if b.CommitTime != nil {
		fmt.Fprintf(w, "  commit time: %s\n", timeCell(*b.CommitTime))
	}
	if b.BuildTime != nil {
		fmt.Fprintf(w, "  build time:  %s\n", timeCell(*b.BuildTime))
	}
	_, err := fmt.Fprintf(w, "  go:          %s %s\n", b.GoVersion, b.Platform)
	return err
}
