package sim

import (
	"fmt"
	"strings"
)

// Options choose the store of a run and the masks of known defects: a mask
// keeps the run away from a defect already recorded in internal/sim/FINDINGS.md, so
// that it finds others. Remove a mask once main has the fix.
type Options struct {
	// Store is "mem" (default), "bolt" or "etcd".
	Store string
	// Dir is where a bolt store's file goes.
	Dir string
	// Etcd is the endpoint of an etcd for Store "etcd".
	Etcd string

	// NoRecreate never creates a scope under the name of one that was
	// deleted (internal/sim/FINDINGS.md 1: the enabling memory outlives the scope).
	NoRecreate bool
	// NoExecToSim and NoSimToExec keep restarts from changing the
	// actuator that way (internal/sim/FINDINGS.md 2 and 3: an event started under one
	// actuator is not finished by the other).
	NoExecToSim, NoSimToExec bool
	// ChaosByName lets chaos rules outlive the VM or scope they name, as
	// the fabric keeps them (internal/sim/FINDINGS.md).
	ChaosByName bool
	// CampaignsMayOverlap allows two campaigns to keep two update domains of
	// one scope in maintenance at once (internal/sim/FINDINGS.md).
	CampaignsMayOverlap bool
	// LazyCampaigns lets a campaign wait, after a VM it waited for began
	// its deletion, until some event ends (internal/sim/FINDINGS.md).
	LazyCampaigns bool
}

// masks name the masks for the flag -mask.
var masks = map[string]func(*Options){
	"recreate":    func(o *Options) { o.NoRecreate = true },
	"exec2sim":    func(o *Options) { o.NoExecToSim = true },
	"sim2exec":    func(o *Options) { o.NoSimToExec = true },
	"chaosbyname": func(o *Options) { o.ChaosByName = true },
	"overlap":     func(o *Options) { o.CampaignsMayOverlap = true },
	"lazy":        func(o *Options) { o.LazyCampaigns = true },
}

// WithMasks returns o with the masks named, comma-separated.
func (o Options) WithMasks(names string) (Options, error) {
	for _, n := range strings.Split(names, ",") {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		set, ok := masks[n]
		if !ok {
			return o, fmt.Errorf("unknown mask %q", n)
		}
		set(&o)
	}
	return o, nil
}
