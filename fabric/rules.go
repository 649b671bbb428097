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
// operations in flight in its scope: every operation of the table, an
// eviction too, though its source is Platform (SPEC.md 6: spot eviction is
// a user-initiated operation).
func userOperation(e *forewarn.Event) bool {
	_, ok := operations[e.Operation]
	return ok
}

// noticeOf returns the notice of an event of type t in scope, unscaled:
// what was asked (0 if nothing was), but at least the type's minimum, and
// for a Terminate its scope's notice (SPEC.md 6). scope is only read for a
// Terminate.
func noticeOf(t forewarn.EventType, scope *forewarn.Scope, asked time.Duration) time.Duration {
	least := forewarn.MinNotice(t)
	if t == forewarn.Terminate {
		least = forewarn.TerminateNoticeOf(scope)
	}
	return max(asked, least)
}

// The descriptions of platform events (SPEC.md 10).
const (
	descFreeze   = "Virtual machine is being paused because of a memory-preserving Live Migration operation."
	descHost     = "Host server is undergoing maintenance."
	descRepair   = "Host server is undergoing an emergency repair."
	descDegraded = "Host server is going to be serviced because of degraded hardware."
)

// campaignTypes are the event types a campaign may roll out, with the
// description and DurationInSeconds of the real service's examples.
var campaignTypes = map[forewarn.EventType]struct {
	description string
	duration    int
}{
	forewarn.Freeze:   {descFreeze, 5},
	forewarn.Reboot:   {descHost, -1},
	forewarn.Redeploy: {descHost, -1},
}
