package etcd_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/etcd"
	"github.com/forewarn/forewarn/internal/etcdtest"
)

// compactEvery is the compaction interval of the tests, on a fake clock.
const compactEvery = time.Minute

// openCompacting opens a store on the etcd at addr, compacting every
// compactEvery of the returned fake clock while it leads; closed on
// cleanup. Compaction is of the whole etcd, so these tests each start
// their own, not the package's.
func openCompacting(tb testing.TB, addr string, every time.Duration) (*etcd.Store, *clockwork.FakeClock, *logBuffer) {
	tb.Helper()
	log := &logBuffer{}
	s, err := etcd.Open(tb.Context(), etcd.Config{Endpoints: []string{addr}, Prefix: "/compact", CompactEvery: every,
		Logger: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	clock := clockwork.NewFakeClock()
	etcd.SetClock(s, clock)
	return s, clock, log
}

// logBuffer collects a store's log; the test reads it while the store
// writes.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// count returns how many times s occurs in the log.
func (l *logBuffer) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.b.String(), s)
}

// compactedLine is what the leader logs at info when it compacts.
const compactedLine = "compacted etcd's key history"

// awaitTick waits until the compaction loop timed by clock waits for its
// next tick: it has read its first revision, or finished a tick.
func awaitTick(tb testing.TB, clock *clockwork.FakeClock) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(tb.Context(), 10*time.Second) // a guard: the loop waits first
	defer cancel()
	if err := clock.BlockUntilContext(ctx, 1); err != nil {
		tb.Fatalf("the compaction loop does not wait for its next tick: %v", err)
	}
}

// tick moves clock one interval on and waits until the tick is done.
func tick(tb testing.TB, clock *clockwork.FakeClock) {
	tb.Helper()
	clock.Advance(compactEvery)
	awaitTick(tb, clock)
}

// putRaw writes key directly and returns the revision of the write.
func putRaw(tb testing.TB, s *etcd.Store, key string) int64 {
	tb.Helper()
	resp, err := s.Client().Put(tb.Context(), key, "x")
	if err != nil {
		tb.Fatal(err)
	}
	return resp.Header.Revision
}

// readableAt reports whether key can still be read at rev, failing the
// test on any error but ErrCompacted.
func readableAt(tb testing.TB, s *etcd.Store, key string, rev int64) bool {
	tb.Helper()
	_, err := s.Client().Get(tb.Context(), key, clientv3.WithRev(rev))
	if errors.Is(err, rpctypes.ErrCompacted) {
		return false
	}
	if err != nil {
		tb.Fatalf("get %s at %d: %v", key, rev, err)
	}
	return true
}

// TestLeaderCompacts: the leader compacts at each tick at the revision of
// the tick before (the start of its lead, the first time), so history one
// interval old is gone and newer history kept; a replica that does not
// lead does not compact, and starts when it leads.
func TestLeaderCompacts(t *testing.T) {
	_, addr := etcdtest.Start(t, "forewarn-compact")
	one, oneClock, _ := openCompacting(t, addr, compactEvery)
	two, twoClock, _ := openCompacting(t, addr, compactEvery)
	before := putRaw(t, one, "/raw/before")

	leading, resign := context.WithCancel(t.Context())
	defer resign()
	if _, _, err := one.Lead(leading, "one"); err != nil {
		t.Fatal(err)
	}
	led := make(chan error, 1)
	go func() {
		_, _, err := two.Lead(t.Context(), "two")
		led <- err
	}()
	awaitTick(t, oneClock) // the loop read the revision it compacts at first
	during := putRaw(t, one, "/raw/during")
	tick(t, oneClock)
	if readableAt(t, one, "/raw/before", before) {
		t.Errorf("revision %d, older than the leader's start, is still readable after a tick", before)
	}
	if !readableAt(t, one, "/raw/during", during) {
		t.Errorf("revision %d, less than an interval old, was compacted", during)
	}

	// A check of a negative, so it waits: the replica that campaigns but
	// does not lead has no compaction loop waiting on its clock.
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	if err := twoClock.BlockUntilContext(ctx, 1); err == nil {
		t.Fatal("a replica that does not lead waits to compact")
	}
	resign()
	select {
	case err := <-led:
		if err != nil {
			t.Fatalf("the second replica's campaign: %v", err)
		}
	case <-time.After(20 * time.Second): // a guard: resigning hands over at once
		t.Fatal("the second replica does not lead after the first resigned")
	}
	awaitTick(t, twoClock)
	after := putRaw(t, two, "/raw/after")
	tick(t, twoClock)
	tick(t, twoClock)
	if readableAt(t, two, "/raw/after", after-1) || readableAt(t, two, "/raw/during", during) {
		t.Errorf("the new leader did not compact past revision %d, written before its first tick", after)
	}
}

// TestLeaderCompactsNothingTwice: a tick with no write since the last
// compaction compacts nothing, a history etcd compacted further already is
// no error, and each compaction is logged at info once.
func TestLeaderCompactsNothingTwice(t *testing.T) {
	_, addr := etcdtest.Start(t, "forewarn-compact-idle")
	s, clock, log := openCompacting(t, addr, compactEvery)
	if _, _, err := s.Lead(t.Context(), "one"); err != nil {
		t.Fatal(err)
	}
	awaitTick(t, clock)
	rev := putRaw(t, s, "/raw/k")
	if _, err := s.Client().Compact(t.Context(), rev); err != nil { // further than the leader will
		t.Fatal(err)
	}
	tick(t, clock) // at the start of the lead: compacted already
	tick(t, clock) // at rev: compacted already
	tick(t, clock) // nothing written since
	if n := log.count(compactedLine); n != 0 {
		t.Errorf("%d compactions logged, want none: etcd's history was compacted further already", n)
	}
	if !readableAt(t, s, "/raw/k", rev) {
		t.Errorf("revision %d compacted, with nothing written after it", rev)
	}
	later := putRaw(t, s, "/raw/k")
	tick(t, clock)
	tick(t, clock)
	if n := log.count(compactedLine); n != 1 || readableAt(t, s, "/raw/k", later-1) {
		t.Errorf("%d compactions logged, want one, at revision %d", n, later)
	}
}

// TestWatchBehindCompaction: a replica whose connection to etcd is cut
// while the leader compacts past what its watch has seen gets, once
// connected again, a change of everything, and then the changes that
// follow.
func TestWatchBehindCompaction(t *testing.T) {
	_, addr := etcdtest.Start(t, "forewarn-compact-watch")
	proxy := startProxy(t, addr)
	leader, clock, _ := openCompacting(t, addr, compactEvery)
	follower, _, _ := openCompacting(t, proxy.addr(), 0)
	changes := follower.Watch(t.Context())
	putScope := func(name string) {
		t.Helper()
		err := leader.Update(t.Context(), func(tx forewarn.Tx) error {
			return tx.PutScope(&forewarn.Scope{Name: name, Incarnation: 1})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	putScope("a")
	awaitChange(t, changes, func(c forewarn.Change) bool { return slices.Contains(c.Scopes, "a") })

	if _, _, err := leader.Lead(t.Context(), "leader"); err != nil {
		t.Fatal(err)
	}
	awaitTick(t, clock)
	proxy.cut()
	putScope("b") // the follower's watch has not seen it
	putScope("c")
	tick(t, clock) // compacts at the start of the lead, and reads c's revision or later
	tick(t, clock) // compacts there: b is gone
	proxy.mend()

	awaitChange(t, changes, func(c forewarn.Change) bool { return c.All })
	putScope("d")
	awaitChange(t, changes, func(c forewarn.Change) bool { return slices.Contains(c.Scopes, "d") })
}

// awaitChange receives changes until one satisfies want, failing the test
// if none does within 20 s (the client connects again after a backoff of
// a second or more) or if one with All set comes unasked.
func awaitChange(tb testing.TB, ch <-chan forewarn.Change, want func(forewarn.Change) bool) {
	tb.Helper()
	guard := time.After(20 * time.Second) // a guard: the change comes first
	for {
		select {
		case c, ok := <-ch:
			if !ok {
				tb.Fatal("watch channel closed")
			}
			if want(c) {
				return
			}
			if c.All {
				tb.Fatalf("unexpected change of everything")
			}
		case <-guard:
			tb.Fatal("the change did not come within 20 s")
		}
	}
}

// proxy forwards TCP connections to etcd until cut: then it closes them,
// and closes new ones at once, until mended.
type proxy struct {
	ln    net.Listener
	to    string
	mu    sync.Mutex
	isCut bool
	conns []net.Conn
}

// startProxy starts a proxy to the address to, closed on cleanup.
func startProxy(tb testing.TB, to string) *proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &proxy{ln: ln, to: to}
	tb.Cleanup(func() { ln.Close(); p.cut() })
	go p.serve()
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

// serve accepts connections until the listener closes.
func (p *proxy) serve() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.isCut {
			p.mu.Unlock()
			in.Close()
			continue
		}
		out, err := net.Dial("tcp", p.to)
		if err != nil {
			p.mu.Unlock()
			in.Close()
			continue
		}
		p.conns = append(p.conns, in, out)
		p.mu.Unlock()
		go pipe(in, out)
		go pipe(out, in)
	}
}

// pipe copies from src to dst, then closes both.
func pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
}

// cut closes every connection and refuses new ones.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.isCut = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// mend forwards new connections again.
func (p *proxy) mend() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.isCut = false
}
