package execact

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"text/template"
	"time"

	"github.com/forewarn/forewarn"
)

// Actuator carries out started events by running the operator's command
// once per VM. It is safe for concurrent use.
type Actuator struct {
	cfg     Config
	tmpl    *template.Template
	log     *slog.Logger
	metrics *metrics
}

var _ forewarn.Actuator = (*Actuator)(nil)

// New returns an Actuator. The error wraps forewarn.ErrInvalid if the
// config is bad, such as an empty command or a template that does not
// parse or names an unknown field.
func New(cfg Config) (*Actuator, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	t, err := parseCommand(cfg.Command)
	if err != nil {
		return nil, err
	}
	m, err := newMetrics(cfg.Registerer)
	if err != nil {
		return nil, err
	}
	return &Actuator{
		cfg:     cfg,
		tmpl:    t,
		log:     cfg.Logger.With("component", "exec"),
		metrics: m,
	}, nil
}

// Name is "exec".
func (a *Actuator) Name() string { return "exec" }

// Actuate runs the command for vm until it succeeds or has failed
// cfg.Attempts times, waiting with backoff between attempts. It returns
// nil once the command succeeded, ctx.Err() if ctx is done first (killing
// a running command), or an error naming the VM, the attempts and the last
// exit status and line of output.
func (a *Actuator) Actuate(ctx context.Context, e *forewarn.Event, vm *forewarn.VM) error {
	if e == nil || vm == nil {
		return forewarn.Errorf(forewarn.ErrInvalid, "exec actuator: no event or no VM")
	}
	var last outcome
	for n := 1; n <= a.cfg.Attempts; n++ {
		if n > 1 {
			if err := a.sleep(ctx, a.backoff(n-1)); err != nil {
				return err
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		o, err := a.run(ctx, e, vm, n)
		if err != nil {
			a.metrics.failedVM(e.Type)
			return fmt.Errorf("exec actuator: VM %s, event %s: %w", vm.Name, e.ID, err)
		}
		switch o.result {
		case resultOK:
			return nil
		case resultCancel:
			return ctx.Err()
		}
		last = o
	}
	a.metrics.failedVM(e.Type)
	attempts := fmt.Sprintf("all %d attempts", a.cfg.Attempts)
	if a.cfg.Attempts == 1 {
		attempts = "its one attempt"
	}
	return fmt.Errorf("exec actuator: VM %s, event %s: command failed %s; last: %s", vm.Name, e.ID, attempts, last)
}

// run expands the command for attempt n and runs it, logging and counting
// how it ended. The error is for a command that cannot be expanded, which
// no retry would mend.
func (a *Actuator) run(ctx context.Context, e *forewarn.Event, vm *forewarn.VM, n int) (outcome, error) {
	v := NewVars(e, vm, n)
	script, err := expand(a.tmpl, v)
	if err != nil {
		return outcome{}, err
	}
	log := a.log.With("event", e.ID, "vm", vm.Name, "attempt", n)
	start := a.cfg.Clock.Now()
	o := a.attempt(ctx, script, v, log)
	took := a.cfg.Clock.Since(start)
	a.metrics.run(e.Type, o.result, took)
	switch o.result {
	case resultOK:
		log.Info("exec command succeeded", "exit_code", o.exitCode, "took", took)
	case resultCancel:
		log.Info("exec command stopped", "status", o.status, "took", took)
	default:
		log.Warn("exec command failed", "status", o.status, "exit_code", o.exitCode,
			"last_output", o.last, "of_attempts", a.cfg.Attempts, "took", took)
	}
	return o, nil
}

// backoff returns the wait before retry n (from 1): Backoff doubled n-1
// times, capped at MaxBackoff (or Backoff if longer), then a random time
// between half of it and all of it.
func (a *Actuator) backoff(n int) time.Duration {
	limit := max(MaxBackoff, a.cfg.Backoff)
	d := a.cfg.Backoff
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	d = min(d, limit)
	half := d / 2
	return d - half + rand.N(half+1)
}

// sleep waits d on the clock, or until ctx is done.
func (a *Actuator) sleep(ctx context.Context, d time.Duration) error {
	t := a.cfg.Clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.Chan():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
