package storetest

import (
	"time"

	"github.com/forewarn/forewarn"
)

// t0 is the base time of the fixtures: UTC, with nanoseconds, so that any
// loss of precision or zone shows.
var t0 = time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.UTC)

// at returns t0 plus d.
func at(d time.Duration) time.Time { return t0.Add(d) }

func newScope(name string) *forewarn.Scope {
	return &forewarn.Scope{
		Name:            name,
		Kind:            forewarn.ScaleSet,
		UpdateDomains:   5,
		FaultDomains:    3,
		TerminateNotice: forewarn.Duration(7 * time.Minute),
		Incarnation:     1,
		EnabledAt:       at(time.Second),
		LastSeen:        at(2 * time.Second),
		CreatedAt:       t0,
	}
}

func newVM(name, scope string) *forewarn.VM {
	return &forewarn.VM{
		Name:         name,
		ID:           "0b5e5e4c-7d3a-4c59-9d1e-" + name,
		Scope:        scope,
		UpdateDomain: 1,
		FaultDomain:  2,
		Addresses:    []string{"10.0.0.4", "fd00::4"},
		Priority:     forewarn.Spot,
		State:        forewarn.Running,
		CreatedAt:    at(3 * time.Second),
	}
}

// newEvent returns an event of scope created at created.
func newEvent(id, scope string, created time.Time, resources ...string) *forewarn.Event {
	return &forewarn.Event{
		ID:                id,
		Type:              forewarn.Reboot,
		Status:            forewarn.Scheduled,
		Scope:             scope,
		Resources:         resources,
		Source:            forewarn.User,
		Description:       "Virtual machine is going to be restarted as requested by authorized user.",
		DurationInSeconds: -1,
		Operation:         forewarn.OpRestart,
		NotBefore:         created.Add(15 * time.Minute).Truncate(time.Second),
		CreatedAt:         created,
		ApprovedBy:        forewarn.ApprovedByAdmin,
		ApprovedAt:        created.Add(time.Minute),
		StartedAt:         created.Add(2 * time.Minute),
		EndsAt:            created.Add(3 * time.Minute),
	}
}

// finished returns e as the history records it.
func finished(e *forewarn.Event, outcome forewarn.Outcome) *forewarn.Event {
	f := *e
	f.Outcome = outcome
	f.EndedAt = e.CreatedAt.Add(time.Hour)
	return &f
}
