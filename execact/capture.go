package execact

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"time"
)

// drainWait bounds the wait for the output of an attempt once its process
// group is gone, in case a process outside the group still holds the pipes.
const drainWait = 2 * time.Second

// capture collects the stdout and stderr of one attempt. The command gets
// the write ends of two pipes as its own files, so that Wait returns as soon
// as the shell exits, whoever else still holds them.
type capture struct {
	stdout, stderr output
	rOut, rErr     *os.File
	wOut, wErr     *os.File
	wg             sync.WaitGroup
}

// newCapture makes the pipes and hands their write ends to cmd.
func newCapture(cmd *exec.Cmd, log *slog.Logger) (*capture, error) {
	c := &capture{
		stdout: output{log: log.With("stream", "stdout")},
		stderr: output{log: log.With("stream", "stderr")},
	}
	var err error
	if c.rOut, c.wOut, err = os.Pipe(); err != nil {
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	if c.rErr, c.wErr, err = os.Pipe(); err != nil {
		c.closeAll()
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}
	cmd.Stdout, cmd.Stderr = c.wOut, c.wErr
	return c, nil
}

// start begins reading, once the command has started (or failed to): the
// write ends now belong to the child alone.
func (c *capture) start() {
	c.wOut.Close()
	c.wErr.Close()
	c.wg.Add(2)
	go func() { defer c.wg.Done(); c.stdout.read(c.rOut) }()
	go func() { defer c.wg.Done(); c.stderr.read(c.rErr) }()
}

// finish waits until both streams have ended, or for drainWait, and closes
// the pipes.
func (c *capture) finish() {
	done := make(chan struct{})
	go func() { c.wg.Wait(); close(done) }()
	t := time.NewTimer(drainWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		c.rOut.Close()
		c.rErr.Close()
		<-done
	}
	c.rOut.Close()
	c.rErr.Close()
}

// closeAll closes every pipe end that was made.
func (c *capture) closeAll() {
	for _, f := range []*os.File{c.rOut, c.wOut, c.rErr, c.wErr} {
		if f != nil {
			f.Close()
		}
	}
}

// last returns the last line of output that is not blank, from stderr if
// it has one.
func (c *capture) last() string {
	if c.stderr.last != "" {
		return c.stderr.last
	}
	return c.stdout.last
}
