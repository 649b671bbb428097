package forewarn

import "time"

// ChaosSpec asks the metadata endpoint to misbehave, for testing clients:
// answer Status (410, 429 or 500), or hold the answer for Delay, for a
// Fraction of the requests of a scope, of a VM, or of every caller, for a
// time.
type ChaosSpec struct {
	// Scope or VM limits the fault to that scope's or VM's requests;
	// neither means every caller.
	Scope string `json:"scope,omitempty"`
	VM    string `json:"vm,omitempty"`
	// Status is 410, 429 or 500; zero with a Delay holds answers instead.
	Status int      `json:"status,omitempty"`
	Delay  Duration `json:"delay,omitempty"`
	// Fraction of the matching requests hit, more than 0 and at most 1.
	Fraction float64 `json:"fraction"`
	// For is how long the fault lasts.
	For Duration `json:"for"`
}

// ChaosRule is a fault in force.
type ChaosRule struct {
	ID string `json:"id"`
	ChaosSpec
	CreatedAt time.Time `json:"createdAt"`
	Until     time.Time `json:"until"`
}

// MaxChaosFor is the longest a chaos rule lasts.
const MaxChaosFor = 7 * 24 * time.Hour

// MaxChaosDelay is the longest a chaos rule holds an answer: as long as the
// longest long-poll (timeout_sec 300).
const MaxChaosDelay = 5 * time.Minute

// The statuses a chaos rule may answer with.
var ChaosStatuses = []int{410, 429, 500}

// Matches reports whether the rule applies to a request of vm in scope at
// time now.
func (r *ChaosRule) Matches(scope, vm string, now time.Time) bool {
	if !now.Before(r.Until) {
		return false
	}
	if r.VM != "" {
		return SameName(r.VM, vm)
	}
	return r.Scope == "" || SameName(r.Scope, scope)
}
