package forewarn

import "time"

// Clock is the only source of time of the parts. Production passes a real
// clock; tests pass a fake one and move it by hand. clockwork's clocks
// satisfy it.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}
