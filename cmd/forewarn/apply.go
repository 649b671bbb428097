package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/fleetfile"
	"github.com/forewarn/forewarn/internal/plural"
	"github.com/spf13/cobra"
)

// applyOptions are the flags of apply.
type applyOptions struct {
	admin  *adminOptions
	output outputFormat
	file   string
	prune  bool
	dryRun bool
}

func newApplyCommand() *cobra.Command {
	o := &applyOptions{admin: &adminOptions{}}
	cmd := &cobra.Command{
		Use:   "apply -f FILE [--prune] [--dry-run]",
		Short: "Bring the running server's scopes and VMs to a fleet file",
		Long: "Bring the running server's scopes and VMs to a fleet file: create what it\n" +
			"declares and the server lacks; with --prune, also delete the VMs and scopes\n" +
			"it leaves out (never those of scope \"default\"). Applying the same file twice\n" +
			"changes nothing. A bad file, or one that conflicts with the fleet, is refused\n" +
			"and nothing changes. Prints one line per scope or VM: create, delete,\n" +
			"unchanged or conflict.",
		Args: cobra.NoArgs,
		RunE: o.runE,
	}
	addAdminFlags(cmd, o.admin)
	f := cmd.Flags()
	f.StringVarP(&o.file, "file", "f", "", "the fleet file (YAML)")
	f.BoolVar(&o.prune, "prune", false, "also delete the VMs and scopes the file leaves out")
	f.BoolVar(&o.dryRun, "dry-run", false, "print what would change, and change nothing")
	addOutputFlag(cmd, &o.output)
	return cmd
}

// runE loads the file, then plans or applies it and prints the changes.
func (o *applyOptions) runE(cmd *cobra.Command, _ []string) error {
	if o.file == "" {
		return errors.New("missing -f FILE: the fleet file to apply")
	}
	file, err := fleetfile.Load(o.file)
	if err != nil {
		return oneLine(err)
	}
	return o.admin.withFleet(cmd.Context(), func(ctx context.Context, fleet forewarn.Fleet) error {
		if o.dryRun {
			return o.plan(ctx, cmd.OutOrStdout(), fleet, file)
		}
		changes, err := fleetfile.Apply(ctx, fleet, file, o.prune)
		var conflicts *fleetfile.ConflictError
		if errors.As(err, &conflicts) {
			return printConflicts(cmd.OutOrStdout(), o.output, conflicts)
		}
		if perr := printChanges(cmd.OutOrStdout(), o.output, changes); err == nil {
			err = perr
		}
		return oneLine(err)
	})
}

// printConflicts writes the conflicts that made apply refuse the file, one
// a line as --dry-run writes them, after where the file declares them
// ("fleet.yaml:2: conflict scope web: ..."), or as a JSON array of
// changes; it returns the one-line error that says the file was refused.
func printConflicts(w io.Writer, format outputFormat, e *fleetfile.ConflictError) error {
	if format == outputJSON {
		if err := writeJSON(w, e.Conflicts); err != nil {
			return err
		}
		return errors.New(e.Summary())
	}
	for i, c := range e.Conflicts {
		if _, err := fmt.Fprintf(w, "%s:%d: %s\n", e.File, e.Lines[i], c); err != nil {
			return err
		}
	}
	return errors.New(e.Summary())
}

// plan prints what applying the file would do; conflicts make it fail,
// since applying would refuse the file.
func (o *applyOptions) plan(ctx context.Context, w io.Writer, fleet forewarn.Fleet, file *fleetfile.File) error {
	changes, err := fleetfile.Plan(ctx, fleet, file, o.prune)
	if err != nil {
		return oneLine(err)
	}
	if err := printChanges(w, o.output, changes); err != nil {
		return err
	}
	if n := countConflicts(changes); n > 0 {
		return fmt.Errorf("%s: %s with the fleet: apply would refuse the file and change nothing",
			file.Name, plural.Count(n, "conflict", "conflicts"))
	}
	if o.output == outputTable {
		_, err = fmt.Fprintln(w, "(dry run: nothing was changed)")
	}
	return err
}

// printChanges writes the changes as a JSON array, or one line each.
func printChanges(w io.Writer, format outputFormat, changes []fleetfile.Change) error {
	if format == outputJSON {
		if changes == nil {
			changes = []fleetfile.Change{}
		}
		return writeJSON(w, changes)
	}
	for _, c := range changes {
		if _, err := fmt.Fprintln(w, c); err != nil {
			return err
		}
	}
	return nil
}

func countConflicts(changes []fleetfile.Change) int {
	n := 0
	for _, c := range changes {
		if c.Action == fleetfile.ActionConflict {
			n++
		}
	}
	return n
}
