package imds

import (
	"net/netip"

	"github.com/forewarn/forewarn"
)

var _ forewarn.Publisher = (*Server)(nil)

// PublishScope replaces the scope's snapshot: its incarnation, events and
// VMs. Addresses of VMs no longer in the scope stop resolving to it, and
// their poll records are dropped; long-polls held on the scope answer. A
// snapshot older than the one served (a lower incarnation) is ignored. The
// snapshot must not change afterwards.
func (s *Server) PublishScope(snap *forewarn.ScopeSnapshot) {
	if snap == nil || snap.Scope == nil {
		s.log.Error("publish: snapshot without a scope, ignored")
		return
	}
	st, bad := newScopeState(snap)
	for _, a := range bad {
		s.log.Warn("publish: invalid VM address ignored", "scope", snap.Scope.Name, "address", a)
	}
	key := forewarn.KeyOf(snap.Scope.Name)

	s.mu.Lock()
	old := s.scopes[key]
	if old != nil && snap.Scope.Incarnation < old.scope.Incarnation {
		s.mu.Unlock()
		s.log.Warn("publish: stale snapshot ignored", "scope", snap.Scope.Name,
			"incarnation", snap.Scope.Incarnation, "serving", old.scope.Incarnation)
		return
	}
	s.scopes[key] = st
	st.adoptPolls(old)
	s.addOwners(st, old)
	if old != nil {
		s.dropOwners(old)
	}
	s.mu.Unlock()

	if old != nil {
		close(old.changed)
	}
}

// RemoveScope forgets a scope and its VMs, with their poll records; their
// addresses stop resolving and long-polls held on the scope answer.
func (s *Server) RemoveScope(name string) {
	key := forewarn.KeyOf(name)
	s.mu.Lock()
	old := s.scopes[key]
	if old != nil {
		s.dropOwners(old)
		delete(s.scopes, key)
	}
	s.mu.Unlock()
	if old != nil {
		close(old.changed)
	}
}

// lookup finds the VM that owns an address, without a lock.
func (s *Server) lookup(addr netip.Addr) (caller, bool) {
	v, ok := s.callers.Load(addr)
	if !ok {
		return caller{}, false
	}
	return v.(caller), true
}

// dropOwners removes the addresses that old's VMs owned and that no state
// has claimed since: not the scope's new one, whose addOwners runs first
// (so that an address a VM keeps never goes unresolved in between), nor
// another scope's. s.mu must be held.
func (s *Server) dropOwners(old *scopeState) {
	for _, o := range old.owners {
		if c, ok := s.lookup(o.addr); ok && c.state == old {
			s.callers.Delete(o.addr)
		}
	}
}

// addOwners indexes the addresses of st's VMs, which replaces prev (nil for
// a new scope). An address that belongs to a VM of another scope, or to
// another VM of another state, moves to this one, with a warning. s.mu
// must be held.
func (s *Server) addOwners(st, prev *scopeState) {
	for _, o := range st.owners {
		c, ok := s.lookup(o.addr)
		if ok && c.state != prev && !forewarn.SameName(c.vm.Name, o.vm.Name) {
			s.log.Warn("publish: address claimed by two VMs", "address", o.addr,
				"vm", o.vm.Name, "previous", c.vm.Name)
		}
		s.callers.Store(o.addr, caller{vm: o.vm, state: st, rateKey: vmRateKey(o.vm),
			polls: st.polls[forewarn.KeyOf(o.vm.Name)]})
	}
}
