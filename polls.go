package forewarn

import (
	"context"
	"time"
)

// VMPolls is what one metadata endpoint saw of a VM's polls of
// /metadata/scheduledevents.
type VMPolls struct {
	VM    string `json:"vm"`
	Scope string `json:"scope"`
	// Polls counts the GETs answered with the document or with 304 Not
	// Modified; errors do not count.
	Polls int64 `json:"polls"`
	// FirstPoll and LastPoll are the times of the first and the last of
	// those answers; zero if there was none.
	FirstPoll time.Time `json:"firstPoll,omitzero"`
	LastPoll  time.Time `json:"lastPoll,omitzero"`
	// Seen lists the events the VM was served, each with the first time it
	// was, oldest first.
	Seen []Sighting `json:"seen,omitempty"`
}

// Sighting is the first time a VM was served an event: Event is its
// EventId as the document shows it.
type Sighting struct {
	Event string    `json:"event"`
	At    time.Time `json:"at"`
}

// PollLog is what a metadata endpoint records of the VMs' polls. The record
// is the serving process's own, kept in memory.
type PollLog interface {
	// Polls returns every VM of the scope as the endpoint last had it
	// published, in name order, including those that never polled (Polls
	// 0). It returns ErrNotFound for a scope the endpoint does not serve.
	Polls(ctx context.Context, scope string) ([]*VMPolls, error)
}
