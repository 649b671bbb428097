package sim

import (
	"time"

	"github.com/forewarn/forewarn"
)

// The rules of SPEC.md 6 and DESIGN.md: notice, impact, and what each user
// operation creates.
var (
	minNotice = map[forewarn.EventType]time.Duration{
		forewarn.Freeze: 15 * time.Minute, forewarn.Reboot: 15 * time.Minute,
		forewarn.Redeploy: 10 * time.Minute, forewarn.Preempt: 30 * time.Second,
	}
	impact = map[forewarn.EventType]time.Duration{
		forewarn.Freeze: 5 * time.Second, forewarn.Reboot: 60 * time.Second, forewarn.Redeploy: 300 * time.Second,
		forewarn.Preempt: 30 * time.Second, forewarn.Terminate: 30 * time.Second,
	}
	stateDuring = map[forewarn.EventType]forewarn.VMState{
		forewarn.Freeze: forewarn.Frozen, forewarn.Reboot: forewarn.Rebooting, forewarn.Redeploy: forewarn.Redeploying,
		forewarn.Preempt: forewarn.Deleting, forewarn.Terminate: forewarn.Deleting,
	}
	userOps = map[forewarn.Operation]struct {
		typ    forewarn.EventType
		source forewarn.Source
		desc   string
	}{
		forewarn.OpRestart:   {forewarn.Reboot, forewarn.User, "Virtual machine is going to be restarted as requested by authorized user."},
		forewarn.OpRedeploy:  {forewarn.Redeploy, forewarn.User, "Virtual machine is going to be redeployed as requested by authorized user."},
		forewarn.OpEvict:     {forewarn.Preempt, forewarn.Platform, ""},
		forewarn.OpTerminate: {forewarn.Terminate, forewarn.User, ""},
	}
)

const (
	repairImpact = 600 * time.Second
	descRepair   = "Host server is undergoing an emergency repair."
	descDegraded = "Host server is going to be serviced because of degraded hardware."
)

// campaignTypes are what a campaign may roll out, with the description and
// DurationInSeconds its events show by default.
var campaignTypes = map[forewarn.EventType]struct {
	desc     string
	duration int
}{
	forewarn.Freeze:   {"Virtual machine is being paused because of a memory-preserving Live Migration operation.", 5},
	forewarn.Reboot:   {"Host server is undergoing maintenance.", -1},
	forewarn.Redeploy: {"Host server is undergoing maintenance.", -1},
}

// scaled is a duration of the rules at the server's time scale.
func (m *model) scaled(d time.Duration) time.Duration {
	return time.Duration(float64(d) / m.conf.TimeScale)
}

// ceilSecond rounds t up to a whole second, as the fabric rounds NotBefore.
func ceilSecond(t time.Time) time.Time {
	if s := t.Truncate(time.Second); !s.Equal(t) {
		return s.Add(time.Second)
	}
	return t
}

// impactOf is an event's simulated impact, unscaled.
func impactOf(e *forewarn.Event) time.Duration {
	switch {
	case e.Operation == forewarn.OpFail:
		return repairImpact
	case e.DurationInSeconds > 0:
		return time.Duration(e.DurationInSeconds) * time.Second
	}
	return impact[e.Type]
}
