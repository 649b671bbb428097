package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/drill"
)

// drillRunOptions are the flags of drill run.
type drillRunOptions struct {
	admin  *adminOptions
	output outputFormat
	report string
	junit  string
	serve  drillServeOptions
}

func newDrillCommand() *cobra.Command {
	a := &adminOptions{}
	cmd := newGroupCommand("drill", "Run a readiness drill: maintenance on the fleet, and a pass or a fail for its applications")
	addAdminFlags(cmd, a)
	cmd.AddCommand(newDrillRunCommand(a), newDrillCheckCommand())
	return cmd
}

func newDrillRunCommand(a *adminOptions) *cobra.Command {
	o := &drillRunOptions{admin: a}
	cmd := &cobra.Command{
		Use:   "run FILE",
		Short: "Run the drill of a drill file against a server (--server) or one of its own (--serve)",
		Long: `Run the drill of a drill file (see examples/drills/): apply its fleet file,
then each step in order: a user operation, a campaign, an eviction, a hardware
failure, a wait. Each step lasts until its events have ended, and then checks
what the drill file expects: each event approved by a VM in time, none started
unapproved, every VM of the hit scopes polling, the application healthy again.

A line is printed for each thing that happens (on a terminal, with a live
status line), then the report: a table, or JSON with -o json; --report and
--junit also write it as Markdown and JUnit XML. The exit status is 0 when
every check passed, 1 when one failed, 2 when the drill could not run.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.run(cmd.Context(), args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.report, "report", "", "also write the report as Markdown to this file")
	f.StringVar(&o.junit, "junit", "", "also write the report as JUnit XML to this file (one test case per check)")
	o.serve.addFlags(cmd)
	addOutputFlag(cmd, &o.output)
	return cmd
}

func newDrillCheckCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "check FILE",
		Short: "Check a drill file without running it: every problem, with its line and column",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := drill.Load(args[0])
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s: drill %q, %d steps: ok\n", f.Path, f.Name, len(f.Steps))
			return err
		},
	}
}

// errDrillFailed is a drill that ran and failed a check.
var errDrillFailed = errors.New("drill failed")

// run runs the drill and writes its report.
func (o *drillRunOptions) run(ctx context.Context, path string, stdout, stderr io.Writer) error {
	f, err := drill.Load(path)
	if err != nil {
		return exitCode(2, err)
	}
	if o.serve.on && o.admin.server != "" {
		return exitCode(2, errors.New("give --server or --serve, not both"))
	}
	runner := &drill.Runner{Out: stderr, Live: isTerminal(stderr)}
	var rep *drill.Report
	runDrill := func(ctx context.Context, fleet forewarn.Fleet) error {
		polls, ok := fleet.(forewarn.PollLog)
		if !ok {
			return errors.New("the admin client does not read polls")
		}
		runner.Fleet, runner.Polls = fleet, polls
		rep, err = runner.Run(ctx, f)
		return err
	}
	if o.serve.on {
		runner.Server = "embedded"
		err = o.serve.run(ctx, stderr, runDrill)
	} else {
		runner.Server = o.admin.serverURL()
		err = o.admin.withFleet(ctx, runDrill)
	}
	if rep != nil {
		// Also the report of a drill cut short: what it found so far.
		if werr := o.write(rep, stdout); werr != nil {
			return exitCode(2, errors.Join(err, werr))
		}
	}
	if err != nil {
		return exitCode(2, err)
	}
	if failed, total := rep.Failed(); !rep.Passed {
		return exitCode(1, fmt.Errorf("%w: %d of %d checks failed", errDrillFailed, failed, total))
	}
	return nil
}

// write writes the report: to stdout in the -o format, and to the files
// of --report and --junit.
func (o *drillRunOptions) write(rep *drill.Report, stdout io.Writer) error {
	files := []struct {
		path  string
		write func(io.Writer) error
	}{{o.report, rep.WriteMarkdown}, {o.junit, rep.WriteJUnit}}
	for _, file := range files {
		if file.path == "" {
			continue
		}
		if err := writeReportFile(file.path, file.write); err != nil {
			return err
		}
	}
	if o.output == outputJSON {
		return rep.WriteJSON(stdout)
	}
	return rep.WriteText(stdout)
}

// writeReportFile writes a file with fn, reporting an error of either.
func writeReportFile(path string, fn func(io.Writer) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fn(fh); err != nil {
		fh.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return fh.Close()
}

// isTerminal reports whether w is a terminal, where a live status line can
// be redrawn.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
