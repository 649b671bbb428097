package forewarn

import "time"

// The defaults and bounds of a scope's domains (its terminate notice's
// are in rules.go).
const (
	DefaultUpdateDomains = 5
	DefaultFaultDomains  = 3
	MaxUpdateDomains     = 20
	MaxFaultDomains      = 5
)

// ScopeKind is what groups the VMs of a scope.
type ScopeKind string

// The kinds of scope of SPEC.md 8.
const (
	AvailabilitySet ScopeKind = "availability-set"
	ScaleSet        ScopeKind = "scale-set"
	CloudService    ScopeKind = "cloud-service"
	Standalone      ScopeKind = "standalone"
)

// Scope is the set of VMs that see each other's events.
type Scope struct {
	Name          string    `json:"name"`
	Kind          ScopeKind `json:"kind"`
	UpdateDomains int       `json:"updateDomains"`
	FaultDomains  int       `json:"faultDomains"`
	// TerminateNotice is the notice of Terminate events (scale sets only).
	TerminateNotice Duration `json:"terminateNotice"`
	// Incarnation is the scope's DocumentIncarnation: it starts at 1 and
	// grows with every change of the scope's events.
	Incarnation int64 `json:"incarnation"`
	// EnabledAt is when a VM of the scope first asked for its events; zero
	// if none ever did. LastSeen is the last such request that was stored.
	EnabledAt time.Time `json:"enabledAt,omitzero"`
	LastSeen  time.Time `json:"lastSeen,omitzero"`
	// Enabled says whether the scope gets notice now (SPEC.md 9): it has
	// enabled Scheduled Events and asked within the idle time, or the
	// server enables every scope. It is worked out when the scope is read.
	Enabled   bool      `json:"enabled"`
	CreatedAt time.Time `json:"createdAt"`
}
