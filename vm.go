package forewarn

import "time"

// Priority is a VM's priority: Spot VMs may be evicted.
type Priority string

// The priorities of SPEC.md 7.
const (
	Regular Priority = "Regular"
	Spot    Priority = "Spot"
)

// VMState is what the simulated impact of an event does to a VM. It never
// changes what the metadata endpoint answers.
type VMState string

// The states a VM passes through.
const (
	Running     VMState = "running"
	Frozen      VMState = "frozen"
	Rebooting   VMState = "rebooting"
	Redeploying VMState = "redeploying"
	Deleting    VMState = "deleting"
)

// VM is one virtual machine of a scope.
type VM struct {
	Name         string    `json:"name"`
	ID           string    `json:"vmId"`
	Scope        string    `json:"scope"`
	UpdateDomain int       `json:"updateDomain"`
	FaultDomain  int       `json:"faultDomain"`
	Addresses    []string  `json:"addresses"`
	Priority     Priority  `json:"priority"`
	State        VMState   `json:"state"`
	CreatedAt    time.Time `json:"createdAt"`
}
