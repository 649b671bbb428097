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

// checkRange refuses a flag's number outside min..max, naming the flag.
func checkRange(flag string, n, min, max int) error {
	if n < min || n > max {
		return fmt.Errorf("%s must be from %d to %d, not %d", flag, min, max, n)
	}
	return nil
}
