package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// newGroupCommand returns a command that only groups subcommands: alone it
// prints its help; with an argument that names no subcommand it fails
// (cobra would otherwise print the help and succeed).
func newGroupCommand(use, short string) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		RunE:  runGroup,
	}
}

// runGroup runs a command that only groups subcommands: see newGroupCommand.
func runGroup(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return cmd.Help()
	}
	return unknownCommand(cmd, args[0])
}

// unknownCommand says that name is no subcommand of cmd, on one line, and
// suggests the commands that were perhaps meant.
func unknownCommand(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if meant := suggestCommands(cmd, name); len(meant) > 0 {
		msg += "; did you mean " + strings.Join(meant, " or ") + "?"
	}
	return errors.New(msg)
}

// suggestCommands returns, quoted, the subcommands of cmd whose name is
// close to name (cobra's suggestions: a typo or a prefix), and those one
// level further down that have that name ("maintenance pause" is
// "maintenance campaign pause").
func suggestCommands(cmd *cobra.Command, name string) []string {
	var out []string
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra's default, set where it suggests
	}
	for _, s := range cmd.SuggestionsFor(name) {
		out = append(out, strconv.Quote(cmd.CommandPath()+" "+s))
	}
	for _, sub := range cmd.Commands() {
		if !sub.IsAvailableCommand() {
			continue
		}
		for _, subsub := range sub.Commands() {
			if subsub.IsAvailableCommand() && (subsub.Name() == name || subsub.HasAlias(name)) {
				out = append(out, strconv.Quote(subsub.CommandPath()))
			}
		}
	}
	return out
}
