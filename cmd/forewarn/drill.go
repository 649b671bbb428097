package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/drill"
	"github.com/forewarn/forewarn/fleetfile"
	"github.com/forewarn/forewarn/internal/plural"
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
	cmd := newGroupCommand("drill", "Run a readiness drill: maintenance on the fleet, and a pass or a fail for its applications")
	cmd.AddCommand(newDrillRunCommand(), newDrillCheckCommand())
	return cmd
}

func newDrillRunCommand() *cobra.Command {
	o := &drillRunOptions{admin: &adminOptions{}}
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
		Args: exitCodeArgs(2, cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.serve.check(cmd); err != nil {
				return exitCode(2, err)
			}
			return o.run(cmd.Context(), args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.SetFlagErrorFunc(usageError)
	addAdminFlags(cmd, o.admin)
	f := cmd.Flags()
	f.StringVar(&o.report, "report", "", "also write the report as Markdown to this file")
	f.StringVar(&o.junit, "junit", "", "also write the report as JUnit XML to this file (one test case per check)")
	o.serve.addFlags(cmd)
	addOutputFlag(cmd, &o.output)
	return cmd
}

func newDrillCheckCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "check FILE",
		Short: "Check a drill file and the fleet file it names without running it: every problem, with its line and column; exit 1 if there is one, 2 on a usage error",
		Args:  exitCodeArgs(2, cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := loadDrill(args[0], cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s: drill %q, %s: ok\n", f.Path, f.Name,
				plural.Count(len(f.Steps), "step", "steps"))
			return err
		},
	}
	cmd.SetFlagErrorFunc(usageError)
	return cmd
}

// usageError gives a flag's error the exit status of a drill that could
// not run.
func usageError(_ *cobra.Command, err error) error { return exitCode(2, err) }

// loadDrill loads a drill file.
func loadDrill(path string, stderr io.Writer) (*drill.File, error) {
	f, err := drill.Load(path)
	return f, printProblems(err, stderr)
}

// printProblems prints the problems of a drill or fleet file to stderr one
// a line, each beginning FILE:LINE:COLUMN as editors and CI systems'
// problem matchers read them, and returns an error that sums them up.
// Another error it returns as it is.
func printProblems(err error, stderr io.Writer) error {
	pe, ok := errors.AsType[*fleetfile.ParseError](err)
	if !ok {
		return err
	}
	fmt.Fprintln(stderr, pe.Error())
	return fmt.Errorf("%s: %s", pe.Problems[0].File, plural.Count(len(pe.Problems), "problem", "problems"))
}

// errDrillFailed is a drill that ran and failed a check.
var errDrillFailed = errors.New("drill failed")

// run runs the drill and writes its report.
func (o *drillRunOptions) run(ctx context.Context, path string, stdout, stderr io.Writer) error {
	f, err := loadDrill(path, stderr)
	if err != nil {
		return exitCode(2, err)
	}
	if o.serve.on && o.admin.server != "" {
		return exitCode(2, errors.New("give --server or --serve, not both"))
	}
	files, err := o.createFiles()
	if err != nil {
		return exitCode(2, err)
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
		return printProblems(err, stderr)
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
		if werr := o.write(rep, stdout, files); werr != nil {
			return exitCode(2, errors.Join(err, werr))
		}
	} else {
		files.remove()
	}
	if err != nil {
		return exitCode(2, err)
	}
	if failed, total := rep.Failed(); !rep.Passed {
		return exitCode(1, fmt.Errorf("%w: %d of %s failed", errDrillFailed, failed, plural.Count(total, "check", "checks")))
	}
	return nil
}

// reportFile is a file a report is written to, created before the drill
// runs so that a path that cannot be written stops it at once.
type reportFile struct {
	flag, path string
	write      func(*drill.Report, io.Writer) error
	fh         *os.File
	// created says the file did not exist before: a drill that never ran
	// removes it, and leaves one that existed as it was.
	created bool
}

type reportFiles []reportFile

// createFiles creates the files of --report and --junit.
func (o *drillRunOptions) createFiles() (reportFiles, error) {
	var files reportFiles
	for _, f := range []reportFile{
		{flag: "--report", path: o.report, write: (*drill.Report).WriteMarkdown},
		{flag: "--junit", path: o.junit, write: (*drill.Report).WriteJUnit},
	} {
		if f.path == "" {
			continue
		}
		_, statErr := os.Stat(f.path)
		fh, err := os.OpenFile(f.path, os.O_WRONLY|os.O_CREATE, 0o666)
		if err != nil {
			files.remove()
			return nil, fmt.Errorf("%s: %w", f.flag, err)
		}
		f.fh, f.created = fh, errors.Is(statErr, fs.ErrNotExist)
		files = append(files, f)
	}
	return files, nil
}

// remove closes the files, for a drill that never ran, and removes those
// it created.
func (files reportFiles) remove() {
	for _, f := range files {
		f.fh.Close()
		if f.created {
			os.Remove(f.fh.Name())
		}
	}
}

// write writes the report to stdout in the -o format, then to the files
// of --report and --junit.
func (o *drillRunOptions) write(rep *drill.Report, stdout io.Writer, files reportFiles) error {
	var err error
	if o.output == outputJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout)
	}
	for _, f := range files {
		werr := f.fh.Truncate(0)
		if werr == nil {
			werr = f.write(rep, f.fh)
		}
		if cerr := f.fh.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			err = errors.Join(err, fmt.Errorf("%s: write %s: %w", f.flag, f.fh.Name(), werr))
		}
	}
	return err
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
