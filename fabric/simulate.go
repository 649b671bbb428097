package fabric

import (
	"context"
	"time"

	"github.com/forewarn/forewarn"
)

// Simulate is the default actuator (serve --actuator simulate): it carries
// an event out by its impact alone, its VMs showing the state of its type
// (frozen, rebooting, ...) until the event's EndsAt (DESIGN.md).
//
// Its runs end at a time known when the event starts, so the fabric does
// not give each a goroutine: its scheduler records them done at EndsAt, in
// the same transaction that completes the event (see timed). Actuate is for
// any other caller.
type Simulate struct {
	Clock forewarn.Clock
}

var _ forewarn.Actuator = Simulate{}

// Name is "simulate".
func (Simulate) Name() string { return "simulate" }

// Actuate waits until the event's impact ends, or ctx does.
func (s Simulate) Actuate(ctx context.Context, e *forewarn.Event, _ *forewarn.VM) error {
	select {
	case <-s.Clock.After(e.EndsAt.Sub(s.Clock.Now())):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// runsEnd is when the runs of an event end.
func (Simulate) runsEnd(e *forewarn.Event) time.Time { return e.EndsAt }

// timed is an actuator whose runs end at a time known in advance, without
// doing anything: the fabric's scheduler records them done at that time,
// rather than run Actuate in a goroutine per VM.
type timed interface {
	runsEnd(e *forewarn.Event) time.Time
}
