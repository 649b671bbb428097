package drill

import (
	"fmt"
	"time"

	"github.com/forewarn/forewarn"
)

// Report is what a drill found: per step, its events, what each hit VM did
// and every expectation checked.
type Report struct {
	Drill   string    `json:"drill"`
	File    string    `json:"file"`
	Server  string    `json:"server,omitempty"`
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended"`
	Passed  bool      `json:"passed"`
	// Incomplete says why the drill could not run to its end (an action
	// the server refused, the server lost, an interruption); "" if it did.
	Incomplete string        `json:"incomplete,omitempty"`
	Steps      []*StepReport `json:"steps"`
}

// StepReport is what one step did and found.
type StepReport struct {
	Name    string    `json:"name"`
	Kind    Kind      `json:"kind"`
	Started time.Time `json:"started,omitzero"`
	Ended   time.Time `json:"ended,omitzero"`
	// Skipped says why the step did not run: an earlier one stopped the
	// drill.
	Skipped string `json:"skipped,omitempty"`
	// Campaign is the id of a campaign step's campaign.
	Campaign string      `json:"campaign,omitempty"`
	Events   []*EventRow `json:"events,omitempty"`
	Rows     []*VMRow    `json:"rows,omitempty"`
	Checks   []*Check    `json:"checks,omitempty"`
	// NeverPolled names the VMs of the hit scopes that did not poll while
	// the step ran; Unapproved the events that started without approval.
	NeverPolled []string `json:"neverPolled,omitempty"`
	Unapproved  []string `json:"unapproved,omitempty"`
	// Withdrawn names what the drill cancelled when the step stopped
	// before its end: its campaign, its Scheduled events.
	Withdrawn []string `json:"withdrawn,omitempty"`
}

// Passed reports whether every check of the step passed.
func (s *StepReport) Passed() bool {
	for _, c := range s.Checks {
		if !c.Passed {
			return false
		}
	}
	return true
}

// EventRow is one event a step created, as it last was.
type EventRow struct {
	ID        string             `json:"id"`
	Type      forewarn.EventType `json:"type"`
	Scope     string             `json:"scope"`
	Resources []string           `json:"resources"`
	Operation forewarn.Operation `json:"operation,omitempty"`
	CreatedAt time.Time          `json:"createdAt"`
	// NotBefore is the NotBefore the event was first seen with; zero if
	// the drill first saw it started.
	NotBefore  time.Time `json:"notBefore,omitzero"`
	ApprovedBy string    `json:"approvedBy,omitempty"`
	ApprovedAt time.Time `json:"approvedAt,omitzero"`
	StartedAt  time.Time `json:"startedAt,omitzero"`
	EndedAt    time.Time `json:"endedAt,omitzero"`
	// Outcome is Completed or Cancelled, or "" for an event still in
	// flight when the step timed out.
	Outcome forewarn.Outcome `json:"outcome,omitempty"`
}

// StartedUnapproved reports whether the event started without anyone's
// approval: at its NotBefore, or at once in a scope that gave no notice.
// A hardware failure starts at once by nature and is not counted.
func (e *EventRow) StartedUnapproved() bool {
	return !e.StartedAt.IsZero() && e.ApprovedBy == "" && e.Operation != forewarn.OpFail
}

// StartedAtOnce reports whether the event started as it appeared, with no
// notice at all.
func (e *EventRow) StartedAtOnce() bool { return e.StartedAt.Equal(e.CreatedAt) }

// Title names the event by what it does, the same in every run of a
// drill: "Reboot of web-0".
func (e *EventRow) Title() string { return fmt.Sprintf("%s of %s", e.Type, listNames(e.Resources)) }

// VMRow is what one VM did about one event that hit it.
type VMRow struct {
	Event string `json:"event"`
	VM    string `json:"vm"`
	// SeenAfter is the time from the event's appearance to the VM's first
	// poll that was served it; nil if none was.
	SeenAfter *forewarn.Duration `json:"seenAfter,omitempty"`
	// ApprovedAfter is the time from the event's appearance to this VM's
	// approval, if it approved.
	ApprovedAfter *forewarn.Duration `json:"approvedAfter,omitempty"`
	// Outcome says how the event went for the VM, in words: "approved",
	// "approved by web-1", "approved by the admin", "started unapproved",
	// "started at once (hardware failure)", "cancelled", "in flight".
	Outcome string `json:"outcome"`
	// Health is the health check's result, if the step has one.
	Health *HealthResult `json:"health,omitempty"`
}

// HealthResult is how a health check went for one VM after one event.
type HealthResult struct {
	Passed bool `json:"passed"`
	// After is the time from the event's end to the check's first success,
	// or to the last failure.
	After    forewarn.Duration `json:"after"`
	Attempts int               `json:"attempts"`
	// Output is the end of the last failed run's output.
	Output string `json:"output,omitempty"`
}

// Check is one expectation, checked. A check with Error is not about the
// applications: the drill could not run to its end.
type Check struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	Error  bool   `json:"error,omitempty"`
	// Detail says what was seen: why it failed, or how it passed.
	Detail string `json:"detail,omitempty"`
}

// Failed counts the checks that failed in every step, and all of them.
func (r *Report) Failed() (failed, total int) {
	for _, s := range r.Steps {
		for _, c := range s.Checks {
			total++
			if !c.Passed {
				failed++
			}
		}
	}
	return failed, total
}
