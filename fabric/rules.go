package fabric

import (
	"time"

	"github.com/forewarn/forewarn"
)

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
	return forewarn.MinNotice(t)
}

// The descriptions of platform events (SPEC.md 10).
const (
	descFreeze   = "Virtual machine is being paused because of a memory-preserving Live Migration operation."
	descHost     = "Host server is undergoing maintenance."
	descRepair   = "Host server is undergoing an emergency repair."
	descDegraded = "Host server is going to be serviced because of degraded hardware."
)
