package execact

import (
	"log/slog"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/forewarn/forewarn"
)

// Defaults of the zero fields of Config.
const (
	DefaultTimeout  = 10 * time.Minute
	DefaultAttempts = 5
	DefaultBackoff  = 2 * time.Second
	// MaxBackoff caps the wait between two attempts, unless Backoff itself
	// is longer.
	MaxBackoff = 5 * time.Minute
)

// killGrace is how long a process group has to exit after SIGTERM before it
// gets SIGKILL.
const killGrace = 5 * time.Second

// Config sets up an Actuator. Only Command is required.
type Config struct {
	// Command is run with /bin/sh -c once per VM. Template fields of Vars
	// ({{.VM}}, {{.EventID}}, ...) are expanded first; New refuses a
	// template that does not parse or names an unknown field.
	Command string
	// Timeout bounds each attempt, in real time; zero means DefaultTimeout.
	Timeout time.Duration
	// Attempts is how many times the command runs before the VM is given
	// up; zero means DefaultAttempts.
	Attempts int
	// Backoff is the wait before the first retry; it doubles with each
	// retry up to MaxBackoff, with jitter. Zero means DefaultBackoff.
	Backoff time.Duration
	// Clock times the waits between attempts; nil means the real clock.
	Clock forewarn.Clock
	// Logger receives the commands' output and the end of each attempt;
	// nil logs nothing.
	Logger *slog.Logger
	// Registerer, if set, receives forewarn_exec_runs_total,
	// forewarn_exec_failed_vms_total and forewarn_exec_run_duration_seconds.
	Registerer prometheus.Registerer
}

// withDefaults checks the config and fills in its zero fields.
func (c Config) withDefaults() (Config, error) {
	switch {
	case c.Command == "":
		return c, forewarn.Errorf(forewarn.ErrInvalid, "exec actuator: the command is empty")
	case c.Timeout < 0:
		return c, forewarn.Errorf(forewarn.ErrInvalid, "exec actuator: negative timeout %v", c.Timeout)
	case c.Attempts < 0:
		return c, forewarn.Errorf(forewarn.ErrInvalid, "exec actuator: negative attempts %d", c.Attempts)
	case c.Backoff < 0:
		return c, forewarn.Errorf(forewarn.ErrInvalid, "exec actuator: negative backoff %v", c.Backoff)
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Attempts == 0 {
		c.Attempts = DefaultAttempts
	}
	if c.Backoff == 0 {
		c.Backoff = DefaultBackoff
	}
	if c.Clock == nil {
		c.Clock = clockwork.NewRealClock()
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c, nil
}
