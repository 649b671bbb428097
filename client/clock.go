package client

import "time"

// Clock is what the client reads time from and waits on: backoff, polling
// and Retry-After dates. github.com/jonboulle/clockwork's clocks satisfy it.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

// realClock is the system clock.
type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
