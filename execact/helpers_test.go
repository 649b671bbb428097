//go:build unix

package execact

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/forewarn/forewarn"
)

// harness is an Actuator under test with its fake clock, registry and log.
type harness struct {
	*Actuator
	clock *clockwork.FakeClock
	reg   *prometheus.Registry
	log   *syncBuffer
	dir   string
}

// mustNew returns an Actuator on a fake clock for cfg. $DIR in its Command
// stands for the test's temporary directory, shell-quoted.
func mustNew(tb testing.TB, cfg Config) *harness {
	tb.Helper()
	h := &harness{
		clock: clockwork.NewFakeClockAt(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)),
		reg:   prometheus.NewRegistry(),
		log:   &syncBuffer{},
		dir:   tb.TempDir(),
	}
	cfg.Command = strings.ReplaceAll(cfg.Command, "$DIR", shellQuote(h.dir))
	cfg.Clock = h.clock
	cfg.Registerer = h.reg
	cfg.Logger = slog.New(slog.NewTextHandler(h.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	a, err := New(cfg)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	h.Actuator = a
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("log:\n%s", h.log)
		}
	})
	return h
}

// start runs Actuate in the background; the channel gets its result.
func (h *harness) start(ctx context.Context, e *forewarn.Event, vm *forewarn.VM) <-chan error {
	done := make(chan error, 1)
	go func() { done <- h.Actuate(ctx, e, vm) }()
	return done
}

// advance waits until a backoff timer is waiting on the clock, checks that
// the command ran want times so far, and moves the clock by d.
func (h *harness) advance(tb testing.TB, d time.Duration, want int) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.clock.BlockUntilContext(ctx, 1); err != nil {
		tb.Fatalf("no backoff timer after attempt %d: %v", want, err)
	}
	if got := countLines(tb, h.path("calls")); got != want {
		tb.Fatalf("before the backoff ended: %d calls, want %d", got, want)
	}
	h.clock.Advance(d)
}

// path returns a file in the test's directory.
func (h *harness) path(name string) string { return filepath.Join(h.dir, name) }

// counter returns the value of a counter of the registry, 0 if it has not
// been counted.
func (h *harness) counter(tb testing.TB, name string, labels map[string]string) float64 {
	tb.Helper()
	mfs, err := h.reg.Gather()
	if err != nil {
		tb.Fatalf("gather: %v", err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			if equalMaps(got, labels) {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// wait returns the result of a background Actuate, failing if it takes
// longer than limit.
func wait(tb testing.TB, done <-chan error, limit time.Duration) error {
	tb.Helper()
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		tb.Fatalf("Actuate did not return within %v", limit)
		return nil
	}
}

// countLines returns the number of lines of a file, 0 if there is none.
func countLines(tb testing.TB, path string) int {
	tb.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	if err != nil {
		tb.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// readPID reads a process id a command wrote to a file.
func readPID(tb testing.TB, path string) int {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("the command did not record its child: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		tb.Fatalf("pid file: %v", err)
	}
	return pid
}

// waitGone waits until process pid is dead (gone, or a zombie nobody reaps)
// and fails if it is still alive after a few seconds, killing it so that
// the failing test leaves nothing behind.
func waitGone(tb testing.TB, pid int) {
	tb.Helper()
	for range 500 {
		if !alive(pid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	tb.Fatalf("process %d is still running", pid)
}

// alive reports whether pid is a running process, not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces, so look after the last ')'.
	s := string(b)
	rest := s[strings.LastIndexByte(s, ')')+1:]
	fields := strings.Fields(rest)
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

func testEvent() *forewarn.Event {
	return &forewarn.Event{
		ID:                "5a8ef3e1-6a2c-4e4b-9f5e-1e0c2f7b9d10",
		Type:              forewarn.Reboot,
		Status:            forewarn.Started,
		Scope:             "web",
		Resources:         []string{"web-1", "web-2"},
		Source:            forewarn.Platform,
		Description:       "Host server's maintenance; \"reboot\" now.",
		DurationInSeconds: -1,
	}
}

func testVM() *forewarn.VM {
	return &forewarn.VM{
		Name:         "web-1",
		ID:           "0e0b1f36-3c35-4b55-8b0d-5a3a5d0f2d8e",
		Scope:        "web",
		UpdateDomain: 2,
		FaultDomain:  1,
		Addresses:    []string{"10.0.0.4", "fd00::4"},
		Priority:     forewarn.Regular,
		State:        forewarn.Running,
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
