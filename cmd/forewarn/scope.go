package main

import (
	"strconv"

	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// newScopeCommand groups the commands on scopes: availability sets, scale
// sets and cloud services.
func newScopeCommand() *cobra.Command {
	a := &adminOptions{}
	cmd := newGroupCommand("scope", "Create, list, show and delete scopes (availability sets, scale sets, cloud services)")
	addAdminFlags(cmd, a)
	cmd.AddCommand(
		newScopeCreateCommand(a),
		newListCommand(a, "List the scopes", scopeTable, forewarn.Fleet.Scopes),
		newShowCommand(a, "Show a scope", scopeTable, forewarn.Fleet.Scope),
		newDeleteCommand(a, "scope", "NAME", "Delete an empty scope", forewarn.Fleet.DeleteScope),
	)
	return cmd
}

// scopeTable prints scopes.
var scopeTable = table[*forewarn.Scope]{
	header: []string{"NAME", "KIND", "UDS", "FDS", "INCARNATION", "ENABLED", "ENABLED-SINCE", "LAST-SEEN"},
	row: func(s *forewarn.Scope) []string {
		return []string{
			s.Name, string(s.Kind), strconv.Itoa(s.UpdateDomains), strconv.Itoa(s.FaultDomains),
			strconv.FormatInt(s.Incarnation, 10), yesNo(s.Enabled), timeCell(s.EnabledAt), timeCell(s.LastSeen),
		}
	},
}
