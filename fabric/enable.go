package fabric

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/forewarn/forewarn"
)

// storeTimeout bounds the store write a VM's request waits for (enabling,
// approval): with etcd out of reach, the VM gets an error rather than a
// request that hangs.
const storeTimeout = 10 * time.Second

// enableFlushEvery is how often the last request of each scope is stored
// (DESIGN.md: at most once a minute per scope).
const enableFlushEvery = time.Minute

// enabling is what the fabric knows in memory of the requests of each
// scope: when one was last seen, and what the store holds. Every GET of a
// VM notes itself (note), so that path takes no lock: each scope's two
// times are atomics in an entry found in a sync.Map; what publishes and
// flushes learn is written under mu.
type enabling struct {
	scopes sync.Map // forewarn.Key -> *scopeRequests

	mu      sync.Mutex
	created map[forewarn.Key]time.Time // scope -> CreatedAt of the scope stored is of
}

// scopeRequests is one scope's last request seen, and the LastSeen the
// store holds, in Unix nanoseconds; 0 is none seen, or not known.
type scopeRequests struct {
	seen   atomic.Int64
	stored atomic.Int64
}

func newEnabling() enabling {
	return enabling{created: map[forewarn.Key]time.Time{}}
}

// requests returns the entry of a scope, making it on first use.
func (e *enabling) requests(key forewarn.Key) *scopeRequests {
	if r, ok := e.scopes.Load(key); ok {
		return r.(*scopeRequests)
	}
	r, _ := e.scopes.LoadOrStore(key, new(scopeRequests))
	return r.(*scopeRequests)
}

// note records a request and returns the LastSeen the store holds, if known.
func (e *enabling) note(key forewarn.Key, now time.Time) (time.Time, bool) {
	r := e.requests(key)
	r.seen.Store(now.UnixNano())
	if stored := r.stored.Load(); stored != 0 {
		return unixTime(stored), true
	}
	return time.Time{}, false
}

// unixTime is the UTC time of Unix nanoseconds.
func unixTime(n int64) time.Time { return time.Unix(0, n).UTC() }

// lastSeen returns the last request seen of the scope, or the zero time if
// none came since it was created: requests to a deleted scope of its name
// are not its own.
func (e *enabling) lastSeen(s *forewarn.Scope) time.Time {
	r, ok := e.scopes.Load(forewarn.KeyOf(s.Name))
	if !ok {
		return time.Time{}
	}
	seen := r.(*scopeRequests).seen.Load()
	if seen == 0 || unixTime(seen).Before(s.CreatedAt) {
		return time.Time{}
	}
	return unixTime(seen)
}

// learnStored records what the store holds of a scope, as a published
// snapshot or a flush reads it: the LastSeen of one that has enabled
// Scheduled Events, unless a later one is known, so that a request to it
// needs no store write before its answer; nothing for one that has not (a
// scope created again under a deleted one's name), so that its first
// request enables it. A request seen before the scope was created was to a
// deleted one of its name, and is forgotten; so is what a read of such a
// deleted scope learnt, should it come after the new one's (a flush or an
// enable that committed before the scope was created again, and learns
// after the lock of the commit is released).
func (e *enabling) learnStored(key forewarn.Key, s *forewarn.Scope) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if s.CreatedAt.Before(e.created[key]) {
		return
	}
	e.created[key] = s.CreatedAt
	r := e.requests(key)
	if seen := r.seen.Load(); seen != 0 && unixTime(seen).Before(s.CreatedAt) {
		r.seen.CompareAndSwap(seen, 0) // unless a request came meanwhile
	}
	if s.EnabledAt.IsZero() || s.LastSeen.IsZero() {
		r.stored.Store(0)
		return
	}
	if stored := r.stored.Load(); stored == 0 || s.LastSeen.After(unixTime(stored)) {
		r.stored.Store(s.LastSeen.UnixNano())
	}
}

// forget drops what is known of a deleted scope's requests: a scope created
// again under its name starts anew (DESIGN.md, invariant 8).
func (e *enabling) forget(key forewarn.Key) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.scopes.Delete(key)
	delete(e.created, key)
}

// unstored returns the requests seen since the store was last told.
func (e *enabling) unstored() map[forewarn.Key]time.Time {
	out := map[forewarn.Key]time.Time{}
	e.scopes.Range(func(key, r any) bool {
		seen := r.(*scopeRequests).seen.Load()
		if seen != 0 && seen > r.(*scopeRequests).stored.Load() {
			out[key.(forewarn.Key)] = unixTime(seen)
		}
		return true
	})
	return out
}

// publishLapsed publishes again the scopes shown enabled whose requests
// have stopped for the idle time since, so that what shows them (the
// dashboard) says they get no notice any more; nothing else about them
// changes, so nothing else would publish them.
func (f *Fabric) publishLapsed(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.clock.Now()
	var lapsed []string
	for _, s := range f.shownEnabled {
		if !f.enabled(s, now) {
			lapsed = append(lapsed, s.Name)
		}
	}
	if len(lapsed) == 0 {
		return nil
	}
	return f.refreshLocked(ctx, forewarn.Change{Scopes: lapsed})
}

// overlay shows the last request seen in memory on a scope.
func (e *enabling) overlay(s *forewarn.Scope) {
	if seen := e.lastSeen(s); seen.After(s.LastSeen) {
		s.LastSeen = seen
	}
}

// enabled reports whether a scope gets notice (SPEC.md 9): it has enabled
// Scheduled Events and asked within the idle time.
func (f *Fabric) enabled(s *forewarn.Scope, now time.Time) bool {
	if f.cfg.AlwaysEnabled {
		return true
	}
	if s.EnabledAt.IsZero() {
		return false
	}
	last := s.LastSeen
	if seen := f.enabling.lastSeen(s); seen.After(last) {
		last = seen
	}
	return !f.idle(last, now)
}

// idle reports whether a scope whose last request came at last has been
// idle long enough by now to get no notice (SPEC.md 9).
func (f *Fabric) idle(last, now time.Time) bool { return now.Sub(last) >= f.cfg.EnableIdle }

// enable notes a request of a VM of the scope. A scope that was not enabled
// is enabled in the store before the answer, after the first-call delay
// (also with AlwaysEnabled, which gives notice before the first request but
// shows when it came).
func (f *Fabric) enable(ctx context.Context, scope string) error {
	now := f.clock.Now()
	key := forewarn.KeyOf(scope)
	if stored, ok := f.enabling.note(key, now); ok && !f.idle(stored, now) {
		return nil
	}
	first := false
	var stored *forewarn.Scope
	wctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	err := f.update(wctx, func(t *txn) error {
		s, err := t.Scope(scope)
		if err != nil {
			return err
		}
		first = s.EnabledAt.IsZero() || f.idle(s.LastSeen, now)
		if first {
			s.EnabledAt = now
			t.touch(scope) // publish it: the dashboard shows which scopes get notice
		}
		s.LastSeen = now
		stored = s
		return t.PutScope(s)
	})
	if err != nil {
		return err
	}
	f.enabling.learnStored(key, stored)
	if first && f.cfg.FirstCallDelay > 0 {
		select {
		case <-f.clock.After(f.cfg.FirstCallDelay):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// flushEnabling stores the last request of every scope seen since the last
// flush.
func (f *Fabric) flushEnabling(ctx context.Context) error {
	pending := f.enabling.unstored()
	if len(pending) == 0 {
		return nil
	}
	stored := map[forewarn.Key]*forewarn.Scope{}
	err := f.update(ctx, func(t *txn) error {
		clear(stored)
		for key, seen := range pending {
			s, err := t.Scope(string(key))
			if errors.Is(err, forewarn.ErrNotFound) {
				continue
			} else if err != nil {
				return err
			}
			stored[key] = s
			// Not stored: a request older than what the store holds (another
			// replica's), or than the scope (it was to a deleted one of its
			// name), and one to a scope that has not enabled Scheduled Events,
			// which only enable does, with the first-call delay.
			if !seen.After(s.LastSeen) || seen.Before(s.CreatedAt) || s.EnabledAt.IsZero() {
				continue
			}
			s.LastSeen = seen
			if err := t.PutScope(s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for key, s := range stored {
		f.enabling.learnStored(key, s)
	}
	return nil
}
