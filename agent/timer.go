package agent

import (
	"time"

	"github.com/jonboulle/clockwork"
)

// clockTimer is a timer of the agent's clock; nil means none.
type clockTimer = clockwork.Timer

// timerChan is the channel of t, nil (never ready) when t is nil.
func timerChan(t clockTimer) <-chan time.Time {
	if t == nil {
		return nil
	}
	return t.Chan()
}

// stopTimer stops t if there is one.
func stopTimer(t clockTimer) {
	if t != nil {
		t.Stop()
	}
}
