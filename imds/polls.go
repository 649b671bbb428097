package imds

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/forewarn/forewarn"
)

var _ forewarn.PollLog = (*Server)(nil)

// maxEndedSightings bounds the sightings a VM keeps of events no longer in
// the document it was last served: the most recent stay, so that an ended
// event's can still be read for a while.
const maxEndedSightings = 16

// vmPolls is the record of one VM's polls of its events. The counters are
// written without a lock by every answered GET, which therefore allocates
// nothing; the sightings change, under mu, only when the VM is served a
// state it was not served before.
type vmPolls struct {
	polls     atomic.Int64
	firstPoll atomic.Int64 // in Unix nanoseconds, 0 before the first poll
	lastPoll  atomic.Int64
	// served is the state last served and its api-version: only another
	// state, or another version, which shows other event types, can show
	// the VM an event it has not seen. A VM that changes versions at every
	// poll has its sightings checked at every poll, which allocates.
	served atomic.Pointer[servedState]

	mu sync.Mutex
	// seen lists the sightings oldest first: a few, searched in order (a
	// map per VM would cost more memory than it saves time).
	seen []forewarn.Sighting
}

// servedState is a state served at an api-version of eventVersions.
type servedState struct {
	state   *scopeState
	version int
}

// adoptPolls gives st a poll record for each of its VMs: the one prev had
// for the VM if any, else a new one. Records of VMs that left the scope go
// with prev. s.mu must be held.
func (st *scopeState) adoptPolls(prev *scopeState) {
	st.polls = make(map[forewarn.Key]*vmPolls, len(st.vms))
	for _, vm := range st.vms {
		key := forewarn.KeyOf(vm.Name)
		p := prev.pollsOf(key)
		if p == nil {
			p = new(vmPolls)
		}
		st.polls[key] = p
	}
}

// pollsOf returns the poll record of a VM of st, or nil if st is nil or
// has no such VM.
func (st *scopeState) pollsOf(vm forewarn.Key) *vmPolls {
	if st == nil {
		return nil
	}
	return st.polls[vm]
}

// answeredPoll is a GET of the document answered with the state's document
// at api-version version, or with 304, not yet recorded in polls.
type answeredPoll struct {
	polls   *vmPolls
	state   *scopeState
	version int
}

// record records the poll, answered at now, if there was one.
func (a *answeredPoll) record(now time.Time) {
	if a.polls != nil {
		a.polls.record(a.state, a.version, now)
	}
}

// record counts a GET answered with st's document at api-version v, or
// with 304, at now.
func (p *vmPolls) record(st *scopeState, v int, now time.Time) {
	n := now.UnixNano()
	p.polls.Add(1)
	p.lastPoll.Store(n)
	if p.firstPoll.Load() == 0 {
		p.firstPoll.CompareAndSwap(0, n)
	}
	if sv := p.served.Load(); sv == nil || sv.state != st || sv.version != v {
		p.see(st, v, now)
	}
}

// see records the first sighting of each event that st's document shows at
// api-version v, and forgets the oldest sightings of events st does not
// have beyond maxEndedSightings.
func (p *vmPolls) see(st *scopeState, v int, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if sv := p.served.Load(); sv != nil && sv.state == st && sv.version == v {
		return // another poll got here first
	}
	ver := &eventVersions[v]
	for _, e := range st.events {
		if e == nil || !ver.shows(e.Type) {
			continue
		}
		id := string(forewarn.KeyOf(e.ID))
		if !slices.ContainsFunc(p.seen, func(s forewarn.Sighting) bool { return s.Event == id }) {
			p.seen = append(p.seen, forewarn.Sighting{Event: id, At: now})
		}
	}
	p.forgetEnded(st)
	p.served.Store(&servedState{state: st, version: v})
}

// forgetEnded drops the oldest sightings of events st does not have, all
// but maxEndedSightings of them. p.mu must be held.
func (p *vmPolls) forgetEnded(st *scopeState) {
	ended := 0
	for _, s := range p.seen {
		if !st.hasEvent(s.Event) {
			ended++
		}
	}
	drop := ended - maxEndedSightings
	if drop <= 0 {
		return
	}
	kept := p.seen[:0]
	for _, s := range p.seen {
		if drop > 0 && !st.hasEvent(s.Event) {
			drop--
			continue
		}
		kept = append(kept, s)
	}
	clear(p.seen[len(kept):])
	p.seen = kept
}

// report returns the record as the poll log shows it.
func (p *vmPolls) report(vm, scope string) *forewarn.VMPolls {
	r := &forewarn.VMPolls{VM: vm, Scope: scope, Polls: p.polls.Load(),
		FirstPoll: unixTime(p.firstPoll.Load()), LastPoll: unixTime(p.lastPoll.Load())}
	p.mu.Lock()
	r.Seen = slices.Clone(p.seen)
	p.mu.Unlock()
	return r
}

// unixTime is the UTC time of Unix nanoseconds, or the zero time for 0.
func unixTime(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// Polls returns the poll record of every VM of the scope as last published,
// in name order, those that never polled included.
func (s *Server) Polls(_ context.Context, scope string) ([]*forewarn.VMPolls, error) {
	s.mu.Lock()
	st := s.scopes[forewarn.KeyOf(scope)]
	s.mu.Unlock()
	if st == nil {
		return nil, forewarn.Errorf(forewarn.ErrNotFound, "scope %q not found", scope)
	}
	polls := make([]*forewarn.VMPolls, 0, len(st.vms))
	for _, vm := range st.vms {
		polls = append(polls, st.polls[forewarn.KeyOf(vm.Name)].report(vm.Name, st.scope.Name))
	}
	slices.SortFunc(polls, func(a, b *forewarn.VMPolls) int { return forewarn.CompareNames(a.VM, b.VM) })
	return polls, nil
}
