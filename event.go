package forewarn

import "time"

// EventType is the impact an event has on its VMs.
type EventType string

// The event types of SPEC.md 6.
const (
	Freeze    EventType = "Freeze"
	Reboot    EventType = "Reboot"
	Redeploy  EventType = "Redeploy"
	Preempt   EventType = "Preempt"
	Terminate EventType = "Terminate"
)

// EventTypes lists every event type in the order of SPEC.md 6.
var EventTypes = []EventType{Freeze, Reboot, Redeploy, Preempt, Terminate}

// EventStatus is where an event stands. There is no completed status: a
// finished event leaves the document and goes to the history.
type EventStatus string

// The statuses an event shows on the wire.
const (
	Scheduled EventStatus = "Scheduled"
	Started   EventStatus = "Started"
)

// Source says who initiated an event.
type Source string

// The sources of SPEC.md 2 (EventSource).
const (
	Platform Source = "Platform"
	User     Source = "User"
)

// Operation is the user operation that created an event, or "" for platform
// maintenance.
type Operation string

// The user operations of SPEC.md 6 and the hardware events.
const (
	OpRestart   Operation = "restart"
	OpRedeploy  Operation = "redeploy"
	OpEvict     Operation = "evict"
	OpTerminate Operation = "terminate"
	OpFail      Operation = "fail"
	OpDegrade   Operation = "degrade"
)

// Outcome says how an event left the document.
type Outcome string

// The outcomes recorded in the history.
const (
	Completed Outcome = "Completed"
	Cancelled Outcome = "Cancelled"
)

// ApprovedByAdmin is the ApprovedBy of an event the operator approved.
const ApprovedByAdmin = "admin"

// Event is one scheduled event, from its creation until it completes or is
// cancelled, and afterwards in the history.
type Event struct {
	ID          string      `json:"id"`
	Type        EventType   `json:"type"`
	Status      EventStatus `json:"status"`
	Scope       string      `json:"scope"`
	Resources   []string    `json:"resources"`
	Source      Source      `json:"source"`
	Description string      `json:"description"`
	// DurationInSeconds is the nominal impact: -1 unknown, 0 none.
	DurationInSeconds int       `json:"durationInSeconds"`
	Operation         Operation `json:"operation,omitempty"`

	// NotBefore is the earliest start, in whole seconds; zero once started.
	NotBefore  time.Time `json:"notBefore,omitzero"`
	CreatedAt  time.Time `json:"createdAt"`
	ApprovedBy string    `json:"approvedBy,omitempty"`
	ApprovedAt time.Time `json:"approvedAt,omitzero"`
	StartedAt  time.Time `json:"startedAt,omitzero"`
	// EndsAt is when the nominal impact of a started event ends: the
	// simulate actuator completes it then; another actuator when its runs
	// are done, which may be sooner or later.
	EndsAt time.Time `json:"endsAt,omitzero"`
	// Actuator names the actuator that started the event; after a restart
	// with another one, that one finishes it.
	Actuator string `json:"actuator,omitempty"`
	// Actuated lists the VMs the actuator has finished; Failed those on
	// which it failed for good, which hold the event Started until an admin
	// resolves it.
	Actuated []string `json:"actuated,omitempty"`
	Failed   []string `json:"failed,omitempty"`
	// Deleted lists the VMs deleted while the event was in flight: they
	// leave Resources (but the last, which the history keeps as the VM the
	// event was for), Actuated and Failed, and are named here.
	Deleted []string `json:"deleted,omitempty"`
	// Campaign is the campaign that created the event, if any.
	Campaign string `json:"campaign,omitempty"`

	// Outcome and EndedAt are set in the history only.
	Outcome Outcome   `json:"outcome,omitempty"`
	EndedAt time.Time `json:"endedAt,omitzero"`
}

// Hits reports whether the event names the VM (case-insensitively).
func (e *Event) Hits(vm string) bool {
	for _, r := range e.Resources {
		if SameName(r, vm) {
			return true
		}
	}
	return false
}

// InFlight reports whether the event is still in the document.
func (e *Event) InFlight() bool { return e.Outcome == "" }
