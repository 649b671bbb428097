package imds

import (
	"fmt"
	"net/http"

	"github.com/forewarn/forewarn"
)

// wireDocument is the GET document of SPEC.md 3.
type wireDocument struct {
	DocumentIncarnation int64
	Events              []wireEvent
}

// wireEvent is one event as an api-version shows it; the pointer fields are
// left out by the versions that lack them.
type wireEvent struct {
	EventId           string // spelled as on the wire
	EventType         forewarn.EventType
	ResourceType      string
	Resources         []string
	EventStatus       forewarn.EventStatus
	NotBefore         string
	Description       *string          `json:",omitempty"`
	EventSource       *forewarn.Source `json:",omitempty"`
	DurationInSeconds *int             `json:",omitempty"`
}

// renderDocument renders the scope's events as api-version v shows them.
func renderDocument(st *scopeState, v *eventVersion) ([]byte, error) {
	doc := wireDocument{
		DocumentIncarnation: st.scope.Incarnation,
		Events:              make([]wireEvent, 0, len(st.events)),
	}
	for _, e := range st.events {
		if e == nil || !v.shows(e.Type) {
			continue
		}
		doc.Events = append(doc.Events, newWireEvent(e, v))
	}
	body, err := marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("render scope %s at api-version %s: %w", st.scope.Name, v.name, err)
	}
	return body, nil
}

func newWireEvent(e *forewarn.Event, v *eventVersion) wireEvent {
	we := wireEvent{
		EventId:      string(forewarn.KeyOf(e.ID)),
		EventType:    e.Type,
		ResourceType: "VirtualMachine",
		Resources:    e.Resources,
		EventStatus:  e.Status,
		NotBefore:    wireNotBefore(e),
	}
	if we.Resources == nil {
		we.Resources = []string{}
	}
	if v.description {
		we.Description = &e.Description
	}
	if v.source {
		src := e.Source
		if src == "" {
			src = forewarn.Platform
		}
		we.EventSource = &src
	}
	if v.duration {
		we.DurationInSeconds = &e.DurationInSeconds
	}
	return we
}

// wireNotBefore is NotBefore in RFC 1123 with GMT, rounded up to the whole
// second (SPEC.md 10), or "" once the event has started.
func wireNotBefore(e *forewarn.Event) string {
	if e.Status == forewarn.Started || e.NotBefore.IsZero() {
		return ""
	}
	return forewarn.CeilSecond(e.NotBefore).UTC().Format(http.TimeFormat)
}
