// Package fleetfile reads fleet files, which declare scopes and VMs in YAML,
// and applies them to a forewarn.Fleet: the fabric when the server starts
// with --fleet, or the admin API client for `forewarn apply -f`.
//
// A fleet file looks like this:
//
//	scopes:
//	  - name: web
//	    kind: availability-set   # availability-set | scale-set | cloud-service
//	    updateDomains: 5         # default 5, at most 20
//	    faultDomains: 3          # default 3, at most 5
//	    vms:
//	      - name: web-0
//	        updateDomain: 0      # optional: the server picks round-robin
//	        faultDomain: 0       # optional
//	        addresses: [127.0.10.1]
//	        priority: Regular    # or Spot
//	  - name: pool
//	    kind: scale-set
//	    terminateNotice: 10m     # scale sets only, 5m to 15m, default 5m
//	    vms: []
//	vms:                         # standalone VMs, each its own scope
//	  - name: batch-1
//	    priority: Spot
//
// # Checks
//
// Parse and Load check the whole file before anything changes and report
// every fault with its line, column and field path, such as
//
//	fleet.yaml:12:23: scopes[0].vms[1].updateDomain: 7 is out of range 0..4
//
// They refuse unknown fields, values of the wrong type, invalid names, names
// declared twice (case-insensitively: VMs across the whole file, scopes, and
// a standalone VM named like a scope), domains outside the scope's counts,
// unknown kinds and priorities, bad or repeated IP addresses, and a
// terminate notice outside 5m..15m or on a scope that is not a scale set.
// Durations take Go's syntax plus days ("7d"). Anchors and aliases are not
// supported. A file that fails a check changes nothing.
//
// # Applying
//
// Apply is declarative and idempotent. A scope or VM the fleet lacks is
// created, scopes before their VMs. One that exists and matches the file is
// unchanged: applying the same file twice creates and deletes nothing the
// second time. One that exists but differs in something the API cannot
// change (a scope's kind, domain counts or terminate notice; a VM's scope,
// domains, addresses or priority) is a conflict, and so is a new VM whose
// name or address the fleet has given to something else. If there is any
// conflict Apply refuses the whole file and changes nothing; the error lists
// every conflict. A VM whose domains the file leaves out matches whatever
// domains the server gave it.
//
// Without prune, nothing absent from the file is removed. With prune, the
// VMs absent from the file are deleted first, then the scopes absent from
// it, which are empty by then; only after that are the new scopes and VMs
// created, so that an address or a name can pass from a pruned VM to a new
// one. Prune never touches the scope "default" nor any VM in it, such as the
// VM the server created for its host, unless the file names that VM (then
// it is compared like any other).
//
// Plan tells what Apply would do without doing it. Apply plans first, then
// makes the changes in the order Plan lists them; if a call fails midway it
// returns the changes made so far with the error. The fleet may change
// between the plan and the calls: the server's own checks still hold then.
//
// ApplyRetrying is Apply as serve does it at start with --fleet: without
// pruning, logging what changed, and planning again when another replica
// starting with the same file created a scope or VM first.
package fleetfile
