package client

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Values of Event's string fields, as the service sends them.
const (
	EventTypeFreeze    = "Freeze"
	EventTypeReboot    = "Reboot"
	EventTypeRedeploy  = "Redeploy"
	EventTypePreempt   = "Preempt"
	EventTypeTerminate = "Terminate"

	EventStatusScheduled = "Scheduled"
	EventStatusStarted   = "Started"

	EventSourcePlatform = "Platform"
	EventSourceUser     = "User"
)

// Document is the Scheduled Events document of the caller's scope.
type Document struct {
	// DocumentIncarnation grows whenever the scope's events change.
	DocumentIncarnation int
	// Events is never nil after decoding.
	Events []Event
	// ETag is the response's ETag header, quotes included ("\"4\"").
	ETag string `json:"-"`
	// LongPoll is set when the service offers forewarn's long-poll
	// extension (header "Forewarn-Long-Poll: true").
	LongPoll bool `json:"-"`
}

// UnmarshalJSON decodes the wire form, taking DocumentIncarnation as a
// number or a string and a null Events as empty.
func (d *Document) UnmarshalJSON(b []byte) error {
	var wire struct {
		DocumentIncarnation flexInt
		Events              []Event
	}
	if err := json.Unmarshal(b, &wire); err != nil {
		return err
	}
	d.DocumentIncarnation = int(wire.DocumentIncarnation)
	d.Events = wire.Events
	if d.Events == nil {
		d.Events = []Event{}
	}
	return nil
}

// Event is one scheduled event. Field names follow the wire.
type Event struct {
	EventId      string //nolint:revive // the wire's spelling
	EventType    string
	ResourceType string
	// Resources names the VMs the event hits.
	Resources   []string
	EventStatus string
	// NotBefore is the earliest start, in UTC; zero once Started.
	NotBefore   time.Time
	Description string
	EventSource string
	// DurationInSeconds is the expected interruption: -1 unknown or not
	// applicable (also when the api-version lacks the field), 0 none.
	DurationInSeconds int
}

// eventWire is Event as the service writes it.
type eventWire struct {
	EventId           string
	EventType         string
	ResourceType      string
	Resources         []string
	EventStatus       string
	NotBefore         string
	Description       string
	EventSource       string
	DurationInSeconds *flexInt
}

// UnmarshalJSON decodes the wire form (see ParseNotBefore for NotBefore).
func (e *Event) UnmarshalJSON(b []byte) error {
	var w eventWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	notBefore, err := ParseNotBefore(w.NotBefore)
	if err != nil {
		return fmt.Errorf("event %q: %w", w.EventId, err)
	}
	*e = Event{
		EventId: w.EventId, EventType: w.EventType, ResourceType: w.ResourceType,
		Resources: w.Resources, EventStatus: w.EventStatus, NotBefore: notBefore,
		Description: w.Description, EventSource: w.EventSource, DurationInSeconds: -1,
	}
	if w.DurationInSeconds != nil {
		e.DurationInSeconds = int(*w.DurationInSeconds)
	}
	return nil
}

// MarshalJSON encodes the wire form: NotBefore in RFC 1123 with GMT, ""
// when zero.
func (e Event) MarshalJSON() ([]byte, error) {
	d := flexInt(e.DurationInSeconds)
	return json.Marshal(eventWire{
		EventId: e.EventId, EventType: e.EventType, ResourceType: e.ResourceType,
		Resources: e.Resources, EventStatus: e.EventStatus, NotBefore: FormatNotBefore(e.NotBefore),
		Description: e.Description, EventSource: e.EventSource, DurationInSeconds: &d,
	})
}

// Hits reports whether the event names vmName in Resources, ignoring case
// and the "_" prefix that api-versions before 2017-08-01 put on VM names.
func (e Event) Hits(vmName string) bool {
	want := strings.TrimPrefix(vmName, "_")
	for _, r := range e.Resources {
		if strings.EqualFold(r, vmName) || strings.EqualFold(strings.TrimPrefix(r, "_"), want) {
			return true
		}
	}
	return false
}
