package execact

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
)

// outcome is how one attempt ended.
type outcome struct {
	result   string // resultOK, resultFail, resultTimeout or resultCancel
	status   string // "exit status 3", "signal: killed", "timed out after 10m0s", ...
	exitCode int    // -1 if the command did not exit by itself
	last     string // the last line of output that is not blank
}

// String says how the attempt ended, with its last line of output.
func (o outcome) String() string {
	if o.last == "" {
		return o.status
	}
	return fmt.Sprintf("%s: %q", o.status, o.last)
}

// attempt runs script once, in a process group of its own, with the
// variables of v in its environment.
func (a *Actuator) attempt(ctx context.Context, script string, v Vars, log *slog.Logger) outcome {
	actx, cancel := context.WithTimeout(ctx, a.cfg.Timeout)
	defer cancel()
	cmd := exec.CommandContext(actx, "/bin/sh", "-c", script)
	cmd.Env = append(os.Environ(), v.Environ()...)
	inGroup(cmd)
	c, err := newCapture(cmd, log)
	if err != nil {
		return outcome{result: resultFail, status: err.Error(), exitCode: -1}
	}
	err = cmd.Start()
	c.start()
	if err != nil {
		c.finish()
		return outcome{result: resultFail, status: fmt.Sprintf("start: %v", err), exitCode: -1}
	}
	err = cmd.Wait()
	killGroup(cmd.Process.Pid)
	c.finish()
	o := a.classify(ctx, actx, cmd, err)
	o.last = c.last()
	return o
}

// classify tells how an attempt ended from the error of Wait and the
// contexts of the run and of the attempt.
func (a *Actuator) classify(ctx, actx context.Context, cmd *exec.Cmd, err error) outcome {
	o := outcome{result: resultFail, exitCode: -1}
	if cmd.ProcessState != nil {
		o.exitCode = cmd.ProcessState.ExitCode()
		o.status = cmd.ProcessState.String()
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		o.result = resultOK
	case ctx.Err() != nil:
		o.result, o.status = resultCancel, fmt.Sprintf("cancelled: %v", ctx.Err())
	case errors.Is(actx.Err(), context.DeadlineExceeded):
		o.result, o.status = resultTimeout, fmt.Sprintf("timed out after %v", a.cfg.Timeout)
	case errors.As(err, &exitErr): // status and exit code say it all
	default:
		o.status = err.Error()
	}
	return o
}
