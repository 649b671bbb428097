package forewarn

import "time"

// CampaignState is where a campaign of platform maintenance stands.
type CampaignState string

// The states of a campaign.
const (
	CampaignRunning   CampaignState = "running"
	CampaignPaused    CampaignState = "paused"
	CampaignCancelled CampaignState = "cancelled"
	CampaignDone      CampaignState = "done"
)

// CampaignSpec asks for a rollout of platform maintenance across scopes,
// one update domain at a time.
type CampaignSpec struct {
	Type EventType `json:"type"`
	// Scopes are the scopes to walk; All walks every scope instead.
	Scopes []string `json:"scopes,omitempty"`
	All    bool     `json:"all,omitempty"`
	// Notice is the notice of each event; less than the type's minimum
	// gives the minimum. A started campaign's spec holds the notice its
	// events get, the minimum if less was asked.
	Notice Duration `json:"notice,omitempty"`
	// Duration is each event's impact, shown as DurationInSeconds; zero
	// takes the type's (Freeze 5 s; Reboot and Redeploy unknown, -1).
	Duration    Duration `json:"duration,omitempty"`
	Description string   `json:"description,omitempty"`
	// ParallelScopes is how many scopes are under way at once; default 1.
	ParallelScopes int `json:"parallelScopes,omitempty"`
}

// Campaign is a rollout of platform maintenance and its progress.
type Campaign struct {
	ID   string       `json:"id"`
	Spec CampaignSpec `json:"spec"`
	// Description and DurationInSeconds are what every event shows.
	Description       string          `json:"description"`
	DurationInSeconds int             `json:"durationInSeconds"`
	State             CampaignState   `json:"state"`
	Scopes            []ScopeProgress `json:"scopes"`
	CreatedAt         time.Time       `json:"createdAt"`
	EndedAt           time.Time       `json:"endedAt,omitzero"`
	// EstimatedEnd is when the campaign should finish if every event takes
	// its full notice and impact; zero once it has ended.
	EstimatedEnd time.Time `json:"estimatedEnd,omitzero"`
}

// ScopeProgress is how far a campaign has walked one scope.
type ScopeProgress struct {
	Scope         string `json:"scope"`
	UpdateDomains int    `json:"updateDomains"`
	// Done is how many update domains are finished, in order from 0.
	Done int `json:"done"`
	// Event is the id of the event in flight for update domain Done.
	Event string `json:"event,omitempty"`
	// Waiting names what the next update domain waits for, if anything:
	// VMs with another event in flight.
	Waiting string `json:"waiting,omitempty"`
	// NoNotice says the scope has not enabled Scheduled Events: its events
	// start at once.
	NoNotice bool `json:"noNotice,omitempty"`
	// Skipped are the update domains among the Done that were not
	// maintained, and why: their event was cancelled, or they had no VMs.
	Skipped []SkippedDomain `json:"skipped,omitempty"`
}

// SkippedDomain is an update domain a campaign walked past without
// maintaining it.
type SkippedDomain struct {
	UpdateDomain int    `json:"updateDomain"`
	Reason       string `json:"reason"`
}

// Maintained is how many of the Done update domains were maintained.
func (p ScopeProgress) Maintained() int { return p.Done - len(p.Skipped) }

// Ended reports whether the campaign is done or cancelled: it schedules
// nothing more and can no longer be steered.
func (c *Campaign) Ended() bool { return c.State == CampaignDone || c.State == CampaignCancelled }

// Finished reports whether every update domain of the scope is done.
func (p ScopeProgress) Finished() bool { return p.Done >= p.UpdateDomains }
