package drill

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/fleetfile"
	"github.com/forewarn/forewarn/internal/plural"
	"github.com/forewarn/forewarn/internal/yamlnode"
)

// DefaultInterval is how often a drill looks at the server.
const DefaultInterval = 200 * time.Millisecond

// Runner runs drills against a forewarn: its admin API, and the record of
// polls its metadata endpoint keeps.
type Runner struct {
	Fleet forewarn.Fleet
	Polls forewarn.PollLog
	// Out receives a line for each thing that happens; with Live, it is a
	// terminal on which a status line is redrawn. Nil discards.
	Out  io.Writer
	Live bool
	// Server names the server in the report.
	Server string
	// Interval is how often the server is looked at; DefaultInterval if
	// zero.
	Interval time.Duration
	// Shell runs a health check's command; "/bin/sh" if empty.
	Shell string
}

// errStop stops a drill after a step: the steps after it are not run.
var errStop = errors.New("drill stopped")

// Run applies the drill's fleet file, checks that every VM and scope it
// names exists, then runs its steps in order. The report is complete even
// when an expectation fails. The error is for a drill that could not run
// to its end: a bad fleet file or a missing VM (with no report), the
// server out of reach or ctx ending during a step (with the report so far:
// the step is marked failed, the later ones not run).
func (r *Runner) Run(ctx context.Context, f *File) (*Report, error) {
	out := newPrinter(r.Out, r.Live)
	defer out.clear()
	rep := &Report{Drill: f.Name, File: f.Path, Server: r.Server, Started: time.Now()}
	if _, err := r.Fleet.Status(ctx); err != nil {
		return nil, err
	}
	if err := r.preflight(ctx, f); err != nil {
		return nil, err
	}
	if f.FleetFile != nil {
		if err := r.applyFleet(ctx, f.FleetFile, out); err != nil {
			return nil, err
		}
	}
	var stopped string
	var broken error
	for i := range f.Steps {
		step := &f.Steps[i]
		sr := &StepReport{Name: step.Title(), Kind: step.Kind}
		rep.Steps = append(rep.Steps, sr)
		if stopped != "" {
			sr.Skipped = stopped
			continue
		}
		out.linef("step %d/%d: %s", i+1, len(f.Steps), step.Title())
		err := r.runStep(ctx, step, sr, out)
		switch {
		case errors.Is(err, errStop):
			stopped = fmt.Sprintf("step %d (%s) stopped the drill", i+1, step.Title())
		case err != nil:
			if ctx.Err() != nil {
				err = fmt.Errorf("interrupted: %w", context.Cause(ctx))
			}
			broken = fmt.Errorf("step %d (%s): %w", i+1, step.Title(), err)
			sr.Checks = append(sr.Checks, &Check{Name: "the step runs to its end", Error: true, Detail: err.Error()})
			stopped = fmt.Sprintf("step %d (%s) could not run to its end", i+1, step.Title())
			rep.Incomplete = broken.Error()
		}
		printVerdict(out, fmt.Sprintf("step %d/%d", i+1, len(f.Steps)), sr)
	}
	rep.Ended = time.Now()
	failed, _ := rep.Failed()
	rep.Passed = failed == 0 && stopped == ""
	return rep, broken
}

// printVerdict prints a step's failed checks and its verdict.
func printVerdict(out *printer, step string, sr *StepReport) {
	out.clear()
	failed := 0
	for _, c := range sr.Checks {
		if !c.Passed {
			failed++
			out.linef("  FAIL %s: %s", c.Name, c.Detail)
		}
	}
	verdict := "passed"
	if failed > 0 {
		verdict = fmt.Sprintf("FAILED, %d of %s", failed, plural.Count(len(sr.Checks), "check", "checks"))
	}
	out.linef("%s: %s in %s", step, verdict, roundDuration(sr.Ended.Sub(sr.Started)))
}

// applyFleet applies the drill's fleet file without pruning.
func (r *Runner) applyFleet(ctx context.Context, file *fleetfile.File, out *printer) error {
	changes, err := fleetfile.Apply(ctx, r.Fleet, file, false)
	if err != nil {
		return fmt.Errorf("apply fleet file %s: %w", file.Name, err)
	}
	made := 0
	for _, c := range changes {
		if c.Action != fleetfile.ActionUnchanged {
			made++
		}
	}
	out.linef("fleet %s applied: %s", file.Name, plural.Count(made, "change", "changes"))
	return nil
}

// preflight checks that every VM and scope the steps name exists, or is
// declared by the drill's fleet file, so that a typo stops the drill
// before it has done anything. The missing ones are a
// *yamlnode.ParseError, each placed at its step.
func (r *Runner) preflight(ctx context.Context, f *File) error {
	scopes, vms := declared(f.FleetFile)
	var missing []yamlnode.Problem
	for i, s := range f.Steps {
		var err error
		switch {
		case s.VM != "":
			if !vms[forewarn.KeyOf(s.VM)] {
				_, err = r.Fleet.VM(ctx, s.VM)
			}
		case s.Kind == Campaign || s.Kind == WaitForPolls:
			for _, scope := range append(s.Campaign.Scopes, s.Scopes...) {
				if scopes[forewarn.KeyOf(scope)] {
					continue
				}
				if _, err = r.Fleet.Scope(ctx, scope); err != nil {
					break
				}
			}
		}
		switch {
		case errors.Is(err, forewarn.ErrNotFound):
			missing = append(missing, yamlnode.Problem{File: f.Path, Line: s.Line, Column: s.Column,
				Field: yamlnode.Index("steps", i) + "." + string(s.Kind), Message: forewarn.ErrorMessage(err) + " on the server"})
		case err != nil:
			return err
		}
	}
	if len(missing) > 0 {
		return &yamlnode.ParseError{Problems: missing}
	}
	return nil
}

// declared returns the scopes and VMs a fleet file declares, by key.
func declared(file *fleetfile.File) (scopes, vms map[forewarn.Key]bool) {
	scopes, vms = map[forewarn.Key]bool{}, map[forewarn.Key]bool{}
	if file == nil {
		return scopes, vms
	}
	for _, s := range file.Scopes {
		scopes[forewarn.KeyOf(s.Spec.Name)] = true
		for _, vm := range s.VMs {
			vms[forewarn.KeyOf(vm.Spec.Name)] = true
		}
	}
	for _, vm := range file.VMs {
		scopes[forewarn.KeyOf(vm.Spec.Name)] = true
		vms[forewarn.KeyOf(vm.Spec.Name)] = true
	}
	return scopes, vms
}

// runStep runs one step and fills its report.
func (r *Runner) runStep(ctx context.Context, step *Step, sr *StepReport, out *printer) error {
	sr.Started = time.Now()
	defer func() { sr.Ended = time.Now() }()
	switch step.Kind {
	case Wait:
		return r.wait(ctx, step.Wait, out)
	case WaitForPolls:
		return r.waitForPolls(ctx, step, sr, out)
	}
	run := newStepRun(ctx, r, step, sr, out)
	if err := run.act(ctx); err != nil {
		return fmt.Errorf("the server refused the step's action: %w", err)
	}
	err := run.follow(ctx)
	if err != nil {
		run.withdraw(ctx)
	}
	// A step stopped early is not judged on the half of its events it saw:
	// its one failure is the timeout, or the interruption.
	run.report(err == nil)
	return err
}

// wait waits, counting down.
func (r *Runner) wait(ctx context.Context, d time.Duration, out *printer) error {
	end := time.Now().Add(d)
	for {
		left := time.Until(end)
		if left <= 0 {
			return nil
		}
		out.status("  waiting: %s left", roundDuration(left))
		if err := sleep(ctx, min(left, r.interval())); err != nil {
			return err
		}
	}
}

// waitForPolls waits until every VM of the step's scopes has polled, and
// stops the drill if one has not by the step's timeout.
func (r *Runner) waitForPolls(ctx context.Context, step *Step, sr *StepReport, out *printer) error {
	deadline := time.Now().Add(step.Timeout)
	for {
		var waiting []string
		for _, scope := range step.Scopes {
			polls, err := r.Polls.Polls(ctx, scope)
			if err != nil {
				return fmt.Errorf("polls of scope %s: %w", scope, err)
			}
			for _, p := range polls {
				if p.Polls == 0 {
					waiting = append(waiting, p.VM)
				}
			}
		}
		// Kept at each look, for the report of a drill interrupted here.
		sr.NeverPolled = waiting
		if len(waiting) == 0 {
			sr.Checks = append(sr.Checks, &Check{Name: "every VM polls", Passed: true,
				Detail: fmt.Sprintf("after %s", roundDuration(time.Since(sr.Started)))})
			return nil
		}
		if time.Now().After(deadline) {
			sr.Checks = append(sr.Checks, &Check{Name: "every VM polls",
				Detail: fmt.Sprintf("no poll in %s from %s", forewarn.FormatDuration(step.Timeout), listNames(waiting))})
			return errStop
		}
		out.status("  waiting for polls from %s (%s left)", listNames(waiting), roundDuration(time.Until(deadline)))
		if err := sleep(ctx, r.interval()); err != nil {
			return err
		}
	}
}

func (r *Runner) interval() time.Duration {
	if r.Interval > 0 {
		return r.Interval
	}
	return DefaultInterval
}

// sleep waits for d or ctx.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// listNames lists names for a message, the first few only.
func listNames(names []string) string {
	const most = 5
	names = slices.Clone(names)
	slices.SortFunc(names, forewarn.CompareNames)
	if len(names) > most {
		return fmt.Sprintf("%s and %d more", strings.Join(names[:most], ", "), len(names)-most)
	}
	return strings.Join(names, ", ")
}

// roundDuration rounds a duration for display: milliseconds under a
// second, tenths of a second under a minute, seconds above.
func roundDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return forewarn.FormatDuration(d.Round(time.Second))
}
