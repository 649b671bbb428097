package forewarn

import (
	"context"
	"time"
)

// Replica is one serve process of a fleet, as it announces itself.
type Replica struct {
	ID      string `json:"id"`
	Host    string `json:"host"`
	PID     int    `json:"pid"`
	Version string `json:"version"`
	// MetadataAddr and AdminAddr are the addresses it listens on.
	MetadataAddr string    `json:"metadataAddr,omitempty"`
	AdminAddr    string    `json:"adminAddr,omitempty"`
	Started      time.Time `json:"started"`
	// Leader says it runs the time-driven work.
	Leader bool `json:"leader"`
}

// Status is the state of the control plane: where its state lives, and its
// replicas.
type Status struct {
	// Store says where the state lives: the bbolt file, or the etcd
	// endpoints and prefix.
	Store string `json:"store"`
	// Self is the ID of the replica that answered.
	Self string `json:"self"`
	// Leader is the ID of the replica that runs the time-driven work, or ""
	// while none does.
	Leader string `json:"leader"`
	// Replicas are the replicas alive, sorted by ID.
	Replicas []Replica `json:"replicas"`
	// Warning says why Replicas shows only the replica that answered, and
	// Leader is unknown: the store did not answer.
	Warning string `json:"warning,omitempty"`
}

// Roster is a Store whose replicas announce themselves while they run.
type Roster interface {
	// Join announces r until ctx ends or the process dies, when the
	// announcement expires. It blocks until ctx ends, announcing again
	// after a lost connection, and waits while another live replica
	// holds r.ID.
	Join(ctx context.Context, r Replica) error
	// Replicas returns the replicas announced, sorted by ID, and the ID of
	// the leader ("" if none leads).
	Replicas(ctx context.Context) (replicas []Replica, leader string, err error)
}
