package main

import (
	"strconv"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// newChaosCommand groups the commands on fault injection: rules that make
// the metadata endpoint answer errors or answer late, for testing clients.
func newChaosCommand() *cobra.Command {
	a := &adminOptions{}
	cmd := newGroupCommand("chaos", "Make the metadata endpoint answer 410, 429, 500 or late, to test clients; list and end such faults")
	addAdminFlags(cmd, a)
	cmd.AddCommand(
		newChaosAddCommand(a),
		newListCommand(a, "List the chaos rules in force", chaosTable, forewarn.Fleet.Chaos),
		newDeleteCommand(a, "chaos rule", "ID", "End a chaos rule early", forewarn.Fleet.DeleteChaos),
	)
	return cmd
}

// chaosTable prints chaos rules.
var chaosTable = table[*forewarn.ChaosRule]{
	header: []string{"ID", "TARGET", "STATUS", "DELAY", "FRACTION", "UNTIL"},
	row: func(r *forewarn.ChaosRule) []string {
		status, delay := "", ""
		if r.Status != 0 {
			status = strconv.Itoa(r.Status)
		}
		if r.Delay != 0 {
			delay = time.Duration(r.Delay).String()
		}
		return []string{
			r.ID, chaosTarget(r.ChaosSpec), status, delay,
			strconv.FormatFloat(r.Fraction, 'g', -1, 64), timeCell(r.Until),
		}
	},
}

// chaosTarget says whose requests a rule hits: "scope:NAME", "vm:NAME" or
// "all".
func chaosTarget(s forewarn.ChaosSpec) string {
	switch {
	case s.VM != "":
		return "vm:" + s.VM
	case s.Scope != "":
		return "scope:" + s.Scope
	}
	return "all"
}
