package sim

// Options choose the store of a run and the masks of known defects: a mask
// keeps the run away from a defect already recorded in FINDINGS.md, so
// that it finds others. Remove a mask once main has the fix.
type Options struct {
	// Store is "mem" (default), "bolt" or "etcd".
	Store string
	// Dir is where a bolt store's file goes.
	Dir string
	// Etcd is the endpoint of an etcd for Store "etcd".
	Etcd string

	// NoRecreate never creates a scope under the name of one that was
	// deleted (FINDINGS.md 1: the enabling memory outlives the scope).
	NoRecreate bool
	// KeepActuator makes restarts keep the actuator (FINDINGS.md 2: an
	// event started under one actuator is not finished by the other).
	KeepActuator bool
	// ChaosByName lets chaos rules outlive the VM or scope they name, as
	// the fabric keeps them (FINDINGS.md).
	ChaosByName bool
	// CampaignsMayOverlap allows two campaigns to keep two update domains of
	// one scope in maintenance at once (FINDINGS.md).
	CampaignsMayOverlap bool
	// LazyCampaigns lets a campaign wait, after a VM it waited for began
	// its deletion, until some event ends (FINDINGS.md).
	LazyCampaigns bool
}
