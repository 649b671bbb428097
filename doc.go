// Package forewarn holds the domain of the Scheduled Events system: scopes, VMs
// and events, the interfaces that connect the parts (Store, Clock, Fleet), and
// the errors they share. It imports no other package of the project.
//
// The metadata endpoint (imds), the control plane (fabric), the admin API
// (admin), the in-VM client and agent (client, agent) and the stores (bolt
// by default, etcd for many hosts, memstore in memory) each implement or
// use these types.
package forewarn
