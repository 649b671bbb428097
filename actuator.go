package forewarn

import "context"

// Actuator carries out a started event on one of its VMs: it returns once
// the VM's maintenance is done, or an error once it has failed for good
// (after its own retries). It must be idempotent: after a restart of the
// server, a run that was under way is run again, by the actuator the
// server has then, which may be another one.
type Actuator interface {
	// Name names the actuator in the log and on the events it starts
	// (Event.Actuator): "simulate", "exec".
	Name() string
	Actuate(ctx context.Context, e *Event, vm *VM) error
}
