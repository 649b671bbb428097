package imds

import (
	"time"

	"github.com/forewarn/forewarn"
)

// The event ids of the fixtures. Some are upper case: the wire shows them
// lowercase.
const (
	idFreezeScheduled    = "0B4C2A11-6F0E-4C1B-9D2E-0A1B2C3D4E01"
	idFreezeStarted      = "0b4c2a11-6f0e-4c1b-9d2e-0a1b2c3d4e02"
	idRebootScheduled    = "602d9444-d2cd-49c7-8624-8643e7171297"
	idRebootStarted      = "0b4c2a11-6f0e-4c1b-9d2e-0a1b2c3d4e04"
	idRedeployScheduled  = "0b4c2a11-6f0e-4c1b-9d2e-0a1b2c3d4e05"
	idRedeployStarted    = "0b4c2a11-6f0e-4c1b-9d2e-0a1b2c3d4e06"
	idPreemptScheduled   = "0b4c2a11-6f0e-4c1b-9d2e-0a1b2c3d4e07"
	idPreemptStarted     = "0b4c2a11-6f0e-4c1b-9d2e-0a1b2c3d4e08"
	idTerminateScheduled = "0b4c2a11-6f0e-4c1b-9d2e-0a1b2c3d4e09"
	idTerminateStarted   = "0b4c2a11-6f0e-4c1b-9d2e-0a1b2c3d4e10"
	idDBReboot           = "f020ba2e-3bc0-4c40-a10b-86575a9eabd5"
)

// fixtureSnapshots are the scopes every test env starts with:
//   - web (availability set, incarnation 4): web-0 and web-1, with a
//     Scheduled and a Started event of every type;
//   - db (standalone, incarnation 1): db-0, with one Reboot;
//   - pool (scale set, incarnation 1): pool-0, a spot VM, no events.
func fixtureSnapshots() []*forewarn.ScopeSnapshot {
	return []*forewarn.ScopeSnapshot{webSnapshot(4), dbSnapshot(), poolSnapshot()}
}

func webScope(incarnation int64) *forewarn.Scope {
	return &forewarn.Scope{Name: "web", Kind: forewarn.AvailabilitySet, UpdateDomains: 5,
		FaultDomains: 3, Incarnation: incarnation, CreatedAt: epoch}
}

func webVMs() []*forewarn.VM {
	return []*forewarn.VM{
		{Name: "web-0", ID: "5c1f1b4e-0c6d-4a52-8a3e-6f0d1c2b3a40", Scope: "web", UpdateDomain: 0,
			FaultDomain: 0, Addresses: []string{addrWeb0}, Priority: forewarn.Regular,
			State: forewarn.Running, CreatedAt: epoch},
		{Name: "web-1", ID: "5c1f1b4e-0c6d-4a52-8a3e-6f0d1c2b3a41", Scope: "web", UpdateDomain: 1,
			FaultDomain: 1, Addresses: []string{addrWeb1}, Priority: forewarn.Regular,
			State: forewarn.Frozen, CreatedAt: epoch},
	}
}

// webSnapshot is the web scope with every fixture event.
func webSnapshot(incarnation int64) *forewarn.ScopeSnapshot {
	return &forewarn.ScopeSnapshot{Scope: webScope(incarnation), VMs: webVMs(), Events: webEvents()}
}

func webEvents() []*forewarn.Event {
	notBefore := time.Date(2016, 9, 19, 18, 29, 47, 0, time.UTC)
	started := time.Date(2016, 9, 19, 18, 1, 0, 0, time.UTC)
	ev := func(id string, t forewarn.EventType, src forewarn.Source, desc string, dur int) *forewarn.Event {
		return &forewarn.Event{ID: id, Type: t, Status: forewarn.Scheduled, Scope: "web",
			Resources: []string{"web-0", "web-1"}, Source: src, Description: desc,
			DurationInSeconds: dur, NotBefore: notBefore, CreatedAt: epoch}
	}
	start := func(e *forewarn.Event) *forewarn.Event {
		e.Status = forewarn.Started
		e.NotBefore = time.Time{}
		e.StartedAt = started
		e.Resources = []string{"web-1"}
		return e
	}
	freezeScheduled := ev(idFreezeScheduled, forewarn.Freeze, forewarn.Platform,
		"Virtual machine is being paused because of a memory-preserving Live Migration operation.", 5)
	// A deadline between seconds shows the next whole second.
	freezeScheduled.NotBefore = notBefore.Add(300 * time.Millisecond)
	return []*forewarn.Event{
		freezeScheduled,
		start(ev(idFreezeStarted, forewarn.Freeze, forewarn.Platform,
			"Virtual machine is being paused because of a memory-preserving Live Migration operation.", 5)),
		ev(idRebootScheduled, forewarn.Reboot, forewarn.User,
			"Virtual machine is going to be restarted as requested by authorized user.", -1),
		start(ev(idRebootStarted, forewarn.Reboot, forewarn.Platform,
			"Host server is undergoing an emergency repair.", -1)),
		ev(idRedeployScheduled, forewarn.Redeploy, forewarn.Platform,
			"Host server is undergoing maintenance.", -1),
		start(ev(idRedeployStarted, forewarn.Redeploy, forewarn.User,
			"Virtual machine is going to be redeployed as requested by authorized user.", -1)),
		ev(idPreemptScheduled, forewarn.Preempt, forewarn.Platform, "", -1),
		start(ev(idPreemptStarted, forewarn.Preempt, forewarn.Platform, "", -1)),
		ev(idTerminateScheduled, forewarn.Terminate, forewarn.User, "", -1),
		start(ev(idTerminateStarted, forewarn.Terminate, forewarn.User, "", 0)),
	}
}

func dbSnapshot() *forewarn.ScopeSnapshot {
	return &forewarn.ScopeSnapshot{
		Scope: &forewarn.Scope{Name: "db-0", Kind: forewarn.Standalone, UpdateDomains: 1,
			FaultDomains: 1, Incarnation: 1, CreatedAt: epoch},
		VMs: []*forewarn.VM{{Name: "db-0", ID: "7d3e2c1b-0000-4000-8000-000000000001", Scope: "db-0",
			Addresses: []string{addrDB0}, Priority: forewarn.Regular, CreatedAt: epoch}},
		Events: []*forewarn.Event{{ID: idDBReboot, Type: forewarn.Reboot, Status: forewarn.Scheduled,
			Scope: "db-0", Resources: []string{"db-0"}, Source: forewarn.User,
			Description:       "Virtual machine is going to be restarted as requested by authorized user.",
			DurationInSeconds: -1, NotBefore: time.Date(2016, 9, 19, 18, 15, 0, 0, time.UTC),
			CreatedAt: epoch}},
	}
}

func poolSnapshot() *forewarn.ScopeSnapshot {
	return &forewarn.ScopeSnapshot{
		Scope: &forewarn.Scope{Name: "pool", Kind: forewarn.ScaleSet, UpdateDomains: 5,
			FaultDomains: 5, Incarnation: 1, CreatedAt: epoch},
		VMs: []*forewarn.VM{{Name: "pool-0", ID: "9a8b7c6d-0000-4000-8000-000000000002", Scope: "pool",
			UpdateDomain: 3, FaultDomain: 2, Addresses: []string{addrPool0, "fd00::5"},
			Priority: forewarn.Spot, CreatedAt: epoch}},
	}
}
