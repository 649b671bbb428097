package execact

import (
	"strconv"
	"strings"

	"github.com/forewarn/forewarn"
)

// Vars are the fields a command template can use. Each has a FOREWARN_*
// environment variable with the same value (see Environ).
type Vars struct {
	EventID          string   // FOREWARN_EVENT_ID
	EventType        string   // FOREWARN_EVENT_TYPE: Freeze, Reboot, ...
	EventSource      string   // FOREWARN_EVENT_SOURCE: Platform or User
	EventDescription string   // FOREWARN_EVENT_DESCRIPTION
	Scope            string   // FOREWARN_SCOPE
	VM               string   // FOREWARN_VM: the VM's name
	VMID             string   // FOREWARN_VM_ID
	Addresses        []string // FOREWARN_VM_ADDRESSES, comma-separated
	UpdateDomain     int      // FOREWARN_UPDATE_DOMAIN
	FaultDomain      int      // FOREWARN_FAULT_DOMAIN
	Duration         int      // FOREWARN_DURATION: DurationInSeconds, -1 unknown
	Attempt          int      // FOREWARN_ATTEMPT, from 1
}

// NewVars returns the fields of one attempt on one VM of an event.
func NewVars(e *forewarn.Event, vm *forewarn.VM, attempt int) Vars {
	return Vars{
		EventID:          e.ID,
		EventType:        string(e.Type),
		EventSource:      string(e.Source),
		EventDescription: e.Description,
		Scope:            e.Scope,
		VM:               vm.Name,
		VMID:             vm.ID,
		Addresses:        vm.Addresses,
		UpdateDomain:     vm.UpdateDomain,
		FaultDomain:      vm.FaultDomain,
		Duration:         e.DurationInSeconds,
		Attempt:          attempt,
	}
}

// Environ returns the FOREWARN_* variables of v, as "KEY=value" strings.
func (v Vars) Environ() []string {
	return []string{
		"FOREWARN_EVENT_ID=" + v.EventID,
		"FOREWARN_EVENT_TYPE=" + v.EventType,
		"FOREWARN_EVENT_SOURCE=" + v.EventSource,
		"FOREWARN_EVENT_DESCRIPTION=" + v.EventDescription,
		"FOREWARN_SCOPE=" + v.Scope,
		"FOREWARN_VM=" + v.VM,
		"FOREWARN_VM_ID=" + v.VMID,
		"FOREWARN_VM_ADDRESSES=" + strings.Join(v.Addresses, ","),
		"FOREWARN_UPDATE_DOMAIN=" + strconv.Itoa(v.UpdateDomain),
		"FOREWARN_FAULT_DOMAIN=" + strconv.Itoa(v.FaultDomain),
		"FOREWARN_DURATION=" + strconv.Itoa(v.Duration),
		"FOREWARN_ATTEMPT=" + strconv.Itoa(v.Attempt),
	}
}

// sampleVars are the fields New checks a template against.
var sampleVars = Vars{
	EventID:          "00000000-0000-0000-0000-000000000000",
	EventType:        string(forewarn.Reboot),
	EventSource:      string(forewarn.Platform),
	EventDescription: "Host server is undergoing maintenance.",
	Scope:            "scope",
	VM:               "vm",
	VMID:             "00000000-0000-0000-0000-000000000000",
	Addresses:        []string{"10.0.0.4"},
	Duration:         -1,
	Attempt:          1,
}
