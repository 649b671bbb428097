package fabric

import (
	"time"

	"github.com/forewarn/forewarn"
)

// minNotice is the minimum notice of each event type (SPEC.md 6). Terminate
// takes its notice from the scale set instead.
var minNotice = map[forewarn.EventType]time.Duration{
	forewarn.Freeze:   15 * time.Minute,
	forewarn.Reboot:   15 * time.Minute,
	forewarn.Redeploy: 10 * time.Minute,
	forewarn.Preempt:  30 * time.Second,
}

// impact is how long the simulated impact of a started event lasts before
// the event completes, unscaled (DESIGN.md).
var impact = map[forewarn.EventType]time.Duration{
	forewarn.Freeze:    5 * time.Second,
	forewarn.Reboot:    60 * time.Second,
	forewarn.Redeploy:  300 * time.Second,
	forewarn.Preempt:   30 * time.Second,
	forewarn.Terminate: 30 * time.Second,
}

// stateDuring is what the simulated impact of each type does to its VMs.
var stateDuring = map[forewarn.EventType]forewarn.VMState{
	forewarn.Freeze:    forewarn.Frozen,
	forewarn.Reboot:    forewarn.Rebooting,
	forewarn.Redeploy:  forewarn.Redeploying,
	forewarn.Preempt:   forewarn.Deleting,
	forewarn.Terminate: forewarn.Deleting,
}

// operation is what a user operation turns into (SPEC.md 6 and 10).
type operation struct {
	eventType   forewarn.EventType
	source      forewarn.Source
	description string
	duration    int
}

var operations = map[forewarn.Operation]operation{
	forewarn.OpRestart: {forewarn.Reboot, forewarn.User,
		"Virtual machine is going to be restarted as requested by authorized user.", -1},
	forewarn.OpRedeploy: {forewarn.Redeploy, forewarn.User,
		"Virtual machine is going to be redeployed as requested by authorized user.", -1},
	forewarn.OpEvict:     {forewarn.Preempt, forewarn.Platform, "", -1},
	forewarn.OpTerminate: {forewarn.Terminate, forewarn.User, "", -1},
}

// userOperation reports whether an event counts toward the limit of user
// operations in flight in its scope.
func userOperation(e *forewarn.Event) bool {
	_, ok := operations[e.Operation]
	return ok
}

// notice returns the minimum notice of an event type in a scope, unscaled.
func notice(t forewarn.EventType, scope *forewarn.Scope) time.Duration {
	if t == forewarn.Terminate {
		if scope.TerminateNotice > 0 {
			return time.Duration(scope.TerminateNotice)
		}
		return forewarn.DefaultTerminateNotice
	}
	return minNotice[t]
}

// ceilSecond rounds t up to the next whole second, so that the NotBefore the
// wire shows never cuts the notice short (SPEC.md 10).
func ceilSecond(t time.Time) time.Time {
	if s := t.Truncate(time.Second); !s.Equal(t) {
		return s.Add(time.Second)
	}
	return t
}
