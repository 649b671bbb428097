package forewarn

import (
	"context"
	"time"
)

// ScopeSpec asks for a new scope. Zero fields take the defaults:
// availability-set, 5 update domains, 3 fault domains, 5m terminate notice.
type ScopeSpec struct {
	Name            string    `json:"name"`
	Kind            ScopeKind `json:"kind,omitempty"`
	UpdateDomains   int       `json:"updateDomains,omitempty"`
	FaultDomains    int       `json:"faultDomains,omitempty"`
	TerminateNotice Duration  `json:"terminateNotice,omitempty"`
}

// VMSpec asks for a new VM. Without Scope the VM is standalone: its own
// scope, named after it. Nil domains are assigned round-robin.
type VMSpec struct {
	Name         string   `json:"name"`
	Scope        string   `json:"scope,omitempty"`
	UpdateDomain *int     `json:"updateDomain,omitempty"`
	FaultDomain  *int     `json:"faultDomain,omitempty"`
	Addresses    []string `json:"addresses,omitempty"`
	Priority     Priority `json:"priority,omitempty"`
}

// Fleet is what the operator can do: the admin API serves it, and its Go
// client implements it too, so the CLI and tests can use either.
type Fleet interface {
	CreateScope(ctx context.Context, spec ScopeSpec) (*Scope, error)
	Scopes(ctx context.Context) ([]*Scope, error)
	Scope(ctx context.Context, name string) (*Scope, error)
	// DeleteScope deletes an empty scope; ErrConflict if it has VMs.
	DeleteScope(ctx context.Context, name string) error

	CreateVM(ctx context.Context, spec VMSpec) (*VM, error)
	// CreateBatch creates scopes, then VMs (which may be in those scopes),
	// in one transaction: all of them or, on the first error, none.
	// ErrTooLarge if the store takes fewer in one transaction.
	CreateBatch(ctx context.Context, scopes []ScopeSpec, vms []VMSpec) error
	// VMs lists a page of the VMs that q selects, in name order. next is
	// the cursor to pass as q.After for the following page, "" on the last.
	VMs(ctx context.Context, q VMQuery) (vms []*VM, next string, err error)
	VM(ctx context.Context, name string) (*VM, error)
	// DeleteVM deletes a VM and removes it from the events it is in.
	DeleteVM(ctx context.Context, name string) error

	// Operate runs a user operation (restart, redeploy, evict, terminate)
	// on a VM and returns the event it created.
	Operate(ctx context.Context, vm string, op Operation) (*Event, error)

	// Events lists a page of the events in flight that q selects, oldest
	// first. next is the cursor to pass as q.After for the following page,
	// "" on the last.
	Events(ctx context.Context, q EventQuery) (events []*Event, next string, err error)
	Event(ctx context.Context, id string) (*Event, error)
	// Approve approves an event as the admin; a Scheduled event starts at once.
	Approve(ctx context.Context, id string) (*Event, error)
	// Cancel removes a Scheduled event and returns it as it ended, with its
	// Outcome (Cancelled) and EndedAt set and the Status it had;
	// ErrConflict once it has started.
	Cancel(ctx context.Context, id string) (*Event, error)
	// History lists up to limit finished and cancelled events, newest first.
	History(ctx context.Context, limit int) ([]*Event, error)
	// HistoryPage lists a page of the finished and cancelled events, newest
	// first. next is the cursor to pass as q.After for the following page,
	// "" on the last.
	HistoryPage(ctx context.Context, q HistoryQuery) (events []*Event, next string, err error)

	// Fail creates a hardware failure of a VM: a Platform Reboot, Started
	// from its first appearance (SPEC.md 6, 10).
	Fail(ctx context.Context, vm string) (*Event, error)
	// Degrade schedules a Platform Redeploy for degraded hardware with the
	// given notice; zero means DefaultDegradeNotice.
	Degrade(ctx context.Context, vm string, notice time.Duration) (*Event, error)
	// Resolve settles a started event whose actuation failed on some VMs:
	// ResolveComplete completes it, ResolveRetry runs the failed VMs again.
	// ErrConflict for an event with no failed VM, unless r.Force completes
	// it anyway.
	Resolve(ctx context.Context, id string, r Resolution) (*Event, error)

	// StartCampaign starts a rollout of platform maintenance.
	StartCampaign(ctx context.Context, spec CampaignSpec) (*Campaign, error)
	// Campaigns lists every campaign, newest first.
	Campaigns(ctx context.Context) ([]*Campaign, error)
	Campaign(ctx context.Context, id string) (*Campaign, error)
	// SteerCampaign pauses, resumes or cancels a campaign. Pausing stops new
	// events (those in flight go on); cancelling also cancels its Scheduled
	// events. Steering a campaign to the state it is in returns it as it is;
	// pausing or resuming an ended one, or cancelling a done one, is
	// ErrConflict.
	SteerCampaign(ctx context.Context, id string, action CampaignAction) (*Campaign, error)

	// AddChaos makes the metadata endpoint misbehave for a while.
	AddChaos(ctx context.Context, spec ChaosSpec) (*ChaosRule, error)
	// Chaos lists the chaos rules in force.
	Chaos(ctx context.Context) ([]*ChaosRule, error)
	// DeleteChaos ends a chaos rule early.
	DeleteChaos(ctx context.Context, id string) error

	// Status shows where the state lives, the replicas and the leader.
	Status(ctx context.Context) (*Status, error)
}

// ResolveAction is how an admin settles an event whose actuation failed.
type ResolveAction string

// Resolution is how an admin settles an event: the action, and Force to
// complete one whose actuation has not failed (cutting its impact short).
type Resolution struct {
	Action ResolveAction `json:"action"`
	Force  bool          `json:"force,omitempty"`
}

// The ways to resolve an event.
const (
	ResolveComplete ResolveAction = "complete"
	ResolveRetry    ResolveAction = "retry"
)

// CampaignAction steers a campaign.
type CampaignAction string

// The ways to steer a campaign.
const (
	PauseCampaign  CampaignAction = "pause"
	ResumeCampaign CampaignAction = "resume"
	CancelCampaign CampaignAction = "cancel"
)
