package forewarn

import "time"

// The rules of notice and impact, and the control plane's limits: every
// number of SPEC.md 6 and DESIGN.md's simulated impacts, in one place. The
// fabric applies them; serve's flags and the CLI take their defaults from
// here.

// minNotice is the minimum notice of each event type (SPEC.md 6). A
// Terminate takes its scope's TerminateNotice instead.
var minNotice = map[EventType]time.Duration{
	Freeze:   15 * time.Minute,
	Reboot:   15 * time.Minute,
	Redeploy: 10 * time.Minute,
	Preempt:  30 * time.Second,
}

// MinNotice returns the minimum notice of an event type, unscaled; 0 for
// Terminate, whose notice is its scope's TerminateNotice.
func MinNotice(t EventType) time.Duration { return minNotice[t] }

// The notice of a Terminate (SPEC.md 6): a scale set's setting, within
// these bounds, and the notice of a degraded-hardware Redeploy.
const (
	DefaultTerminateNotice = 5 * time.Minute
	MinTerminateNotice     = 5 * time.Minute
	MaxTerminateNotice     = 15 * time.Minute
	DefaultDegradeNotice   = 7 * 24 * time.Hour
)

// CeilSecond rounds a NotBefore up to the next whole second (SPEC.md 10):
// the wire shows whole seconds, and an event never starts before the second
// it shows, so rounding never cuts the notice short. The fabric stores it
// rounded; the endpoint rounds what it shows.
func CeilSecond(t time.Time) time.Time {
	if s := t.Truncate(time.Second); !s.Equal(t) {
		return s.Add(time.Second)
	}
	return t
}

// ValidTerminateNotice reports whether d is within the bounds of a scale
// set's TerminateNotice.
func ValidTerminateNotice(d time.Duration) bool {
	return d >= MinTerminateNotice && d <= MaxTerminateNotice
}

// TerminateNoticeOf returns the notice of a Terminate in a scope: its
// TerminateNotice, or the default if it has none.
func TerminateNoticeOf(s *Scope) time.Duration {
	if s.TerminateNotice > 0 {
		return time.Duration(s.TerminateNotice)
	}
	return DefaultTerminateNotice
}

// impact is how long the simulated impact of a started event of each type
// lasts before the event completes, unscaled (DESIGN.md).
var impact = map[EventType]time.Duration{
	Freeze:    5 * time.Second,
	Reboot:    60 * time.Second,
	Redeploy:  300 * time.Second,
	Preempt:   30 * time.Second,
	Terminate: 30 * time.Second,
}

// RepairImpact is how long the simulated repair of a hardware failure
// lasts, unscaled (DESIGN.md).
const RepairImpact = 600 * time.Second

// Impact returns how long the simulated impact of an event lasts,
// unscaled: a hardware failure's repair, else its DurationInSeconds when
// it gives one, else that of its type.
func Impact(e *Event) time.Duration {
	switch {
	case e.Operation == OpFail:
		return RepairImpact
	case e.DurationInSeconds > 0:
		return time.Duration(e.DurationInSeconds) * time.Second
	}
	return impact[e.Type]
}

// The control plane's defaults (serve's flags).
const (
	// DefaultMaxUserOps is how many user operations may be in flight at
	// once in a scope.
	DefaultMaxUserOps = 10
	// DefaultEnableIdle is how long a scope that makes no request keeps
	// its notice.
	DefaultEnableIdle = 24 * time.Hour
	// DefaultHistoryKeep is how many finished events the history keeps.
	DefaultHistoryKeep = 10000
)
