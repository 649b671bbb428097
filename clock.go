package forewarn

import "github.com/jonboulle/clockwork"

// Clock is the only source of time of the parts. Production passes
// clockwork.NewRealClock(); tests pass a fake clock and move it by hand.
type Clock = clockwork.Clock
