package agent

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/bolt"
	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/imds"
	"github.com/jonboulle/clockwork"
)

// server is forewarn's control plane and metadata endpoint, in process.
type server struct {
	tb  testing.TB
	ctx context.Context
	f   *fabric.Fabric
	url string
}

// mustStartServer starts a fabric (every scope enabled, times divided by
// timeScale) and its metadata endpoint on 127.0.0.1:0.
func mustStartServer(tb testing.TB, timeScale float64) *server {
	tb.Helper()
	store, err := bolt.Open(filepath.Join(tb.TempDir(), "forewarn.db"), bolt.Options{})
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f, err := fabric.New(ctx, fabric.Config{Store: store, Clock: clockwork.NewRealClock(),
		TimeScale: timeScale, AlwaysEnabled: true})
	if err != nil {
		tb.Fatalf("new fabric: %v", err)
	}
	md := imds.New(imds.Config{Metadata: f.Metadata()})
	if err := f.PublishTo(ctx, md); err != nil {
		tb.Fatalf("publish: %v", err)
	}
	ran := make(chan struct{})
	go func() { defer close(ran); f.Run(ctx) }()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	srv := &http.Server{Handler: md}
	go srv.Serve(ln)
	tb.Cleanup(func() {
		md.Shutdown()
		srv.Close()
		cancel()
		<-ran
		store.Close()
	})
	return &server{tb: tb, ctx: ctx, f: f, url: "http://" + ln.Addr().String()}
}

// vm creates a VM with an address in scope, update domain 0.
func (s *server) vm(name, scope, addr string) {
	s.tb.Helper()
	zero := 0
	if _, err := s.f.CreateVM(s.ctx, forewarn.VMSpec{Name: name, Scope: scope, UpdateDomain: &zero,
		Addresses: []string{addr}}); err != nil {
		s.tb.Fatalf("create vm %s: %v", name, err)
	}
}

// boundClient dials from a local address, so that the metadata endpoint
// takes the agent for the VM that owns it.
func boundClient(addr string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(addr)}, Timeout: 5 * time.Second}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// runningAgent is an agent running in a goroutine.
type runningAgent struct {
	*Agent
	cancel context.CancelFunc
	done   chan struct{} // closed when Run returned
	err    error         // what Run returned
}

// stop ends the agent and waits for it; it may be called more than once.
func (r *runningAgent) stop(tb testing.TB) {
	tb.Helper()
	r.cancel()
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		tb.Fatal("agent did not stop")
	}
	if r.err != nil {
		tb.Fatalf("agent: %v", r.err)
	}
}

// mustRunAgent starts an agent with cfg; it is stopped at the end.
func mustRunAgent(tb testing.TB, cfg Config) *runningAgent {
	tb.Helper()
	a, err := New(cfg, testLogger(tb))
	if err != nil {
		tb.Fatalf("new agent: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &runningAgent{Agent: a, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = a.Run(ctx)
	}()
	tb.Cleanup(func() { r.stop(tb) })
	return r
}

// testLogger logs to the test when -v is given, else nowhere.
func testLogger(tb testing.TB) *slog.Logger {
	if !testing.Verbose() {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(tWriter{tb}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ tb testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.tb.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// recordHook returns a hook command that appends "name" and the event's
// environment, then its stdin, as one line to file.
func recordHook(file, name string) *Hook {
	cmd := `printf '%s id=%s type=%s status=%s nb=%s res=%s src=%s dur=%s vm=%s stdin=%s\n' ` + name +
		` "$FOREWARN_EVENT_ID" "$FOREWARN_EVENT_TYPE" "$FOREWARN_EVENT_STATUS" "$FOREWARN_EVENT_NOT_BEFORE"` +
		` "$FOREWARN_EVENT_RESOURCES" "$FOREWARN_EVENT_SOURCE" "$FOREWARN_EVENT_DURATION" "$FOREWARN_VM" "$(cat)" >> ` + file
	return &Hook{Command: cmd, Timeout: Duration(10 * time.Second)}
}

// recordAll records every hook of a type to file.
func recordAll(file string) Hooks {
	return Hooks{OnScheduled: recordHook(file, "on_scheduled"), OnStarted: recordHook(file, "on_started"),
		OnCompleted: recordHook(file, "on_completed"), OnCancelled: recordHook(file, "on_cancelled")}
}

// lines reads the hook log.
func lines(tb testing.TB, file string) []string {
	tb.Helper()
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		tb.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// waitFor polls cond every 10ms until it holds or 20s pass.
func waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// hookCount counts the lines of a hook in the log.
func hookCount(tb testing.TB, file, name string) int {
	n := 0
	for _, l := range lines(tb, file) {
		if strings.HasPrefix(l, name+" ") {
			n++
		}
	}
	return n
}
