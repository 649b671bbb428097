package main

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/forewarn/forewarn"
	"github.com/spf13/cobra"
)

// replicaTable prints the replicas of a status.
var replicaTable = table[forewarn.Replica]{
	header: []string{"REPLICA", "LEADER", "HOST", "PID", "VERSION", "METADATA", "ADMIN", "STARTED"},
	row: func(r forewarn.Replica) []string {
		leader := ""
		if r.Leader {
			leader = "*"
		}
		return []string{r.ID, leader, r.Host, strconv.Itoa(r.PID), r.Version,
			r.MetadataAddr, r.AdminAddr, timeCell(r.Started)}
	},
}

// newStatusCommand returns "status": where the state lives, the replicas
// and which of them leads.
func newStatusCommand() *cobra.Command {
	a := &adminOptions{}
	var output outputFormat
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show where the state lives, the replicas serving it and the one that leads",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withFleet(cmd.Context(), func(ctx context.Context, fleet forewarn.Fleet) error {
				status, err := fleet.Status(ctx)
				if err != nil {
					return err
				}
				if output == outputJSON {
					return writeJSON(cmd.OutOrStdout(), status)
				}
				return printStatus(cmd.OutOrStdout(), status)
			})
		},
	}
	addAdminFlags(cmd, a)
	addOutputFlag(cmd, &output)
	return cmd
}

// printStatus writes the store, the replica that answered, the leader, any
// warning, and a table of the replicas.
func printStatus(w io.Writer, status *forewarn.Status) error {
	leader := status.Leader
	switch {
	case status.Warning != "":
		leader = "unknown"
	case leader == "":
		leader = "none (a replica takes over within the lease time)"
	}
	fmt.Fprintf(w, "store:    %s\nanswered: %s\nleader:   %s\n", status.Store, status.Self, leader)
	if status.Warning != "" {
		fmt.Fprintf(w, "warning:  %s\n", status.Warning)
	}
	fmt.Fprintln(w)
	return replicaTable.write(w, status.Replicas)
}
