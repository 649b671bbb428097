package main

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/execact"
	"github.com/forewarn/forewarn/fabric"
	"github.com/prometheus/client_golang/prometheus"
)

// The actuators serve offers.
const (
	actuatorSimulate = "simulate"
	actuatorExec     = "exec"
)

// checkActuator refuses actuator flags that make no sense.
func (o *serveOptions) checkActuator() error {
	switch o.actuator {
	case actuatorSimulate:
		if o.exec.command != "" {
			return errors.New("--exec-command needs --actuator exec (simulate, the default, runs no command)")
		}
		return nil
	case actuatorExec:
	default:
		return fmt.Errorf("--actuator: %q is not simulate or exec", o.actuator)
	}
	switch e := o.exec; {
	case e.command == "":
		return errors.New("--actuator exec needs --exec-command, the command to run once per VM of a started event")
	case e.timeout == 0:
		return errors.New("--exec-timeout must be more than 0")
	case e.attempts < 1:
		return fmt.Errorf("--exec-attempts must be at least 1, not %d", e.attempts)
	case e.backoff == 0:
		return errors.New("--exec-backoff must be more than 0")
	}
	return nil
}

// newActuator returns the actuator of --actuator: the simulated impact, or
// the exec actuator.
func (o *serveOptions) newActuator(clock forewarn.Clock, log *slog.Logger, reg prometheus.Registerer) (forewarn.Actuator, error) {
	if o.actuator != actuatorExec {
		return fabric.Simulate{Clock: clock}, nil
	}
	a, err := execact.New(execact.Config{
		Command:    o.exec.command,
		Timeout:    time.Duration(o.exec.timeout),
		Attempts:   o.exec.attempts,
		Backoff:    time.Duration(o.exec.backoff),
		Clock:      clock,
		Logger:     log,
		Registerer: reg,
	})
	if err != nil {
		return nil, fmt.Errorf("--exec-command: %w", err)
	}
	log.Info("actuator", "kind", actuatorExec, "command", o.exec.command)
	return a, nil
}
