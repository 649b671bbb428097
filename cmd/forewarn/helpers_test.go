package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forewarn/forewarn/client"
	"github.com/spf13/cobra"
)

// waitLimit bounds every wait of these tests, so that a broken server
// fails the test instead of hanging it. Nothing waits for it to pass.
const waitLimit = 20 * time.Second

// testServer is a forewarn serve running in-process on loopback.
type testServer struct {
	dataDir     string
	metadataURL string
	adminURL    string
	token       string
	logs        *lineWriter
	hostVM      string // the default VM, named after the host
	cancel      context.CancelFunc
	stopped     chan struct{}
	runErr      error
}

// startServer runs forewarn serve as its command line would (--dev, time
// scale 1, no rate limit, both listeners on 127.0.0.1:0, a fresh data
// directory, then the extra flags, which win), waits until both listeners
// are open, and stops it at cleanup, checking that it returned nil.
func startServer(t *testing.T, extra ...string) *testServer {
	t.Helper()
	return startServerIn(t, t.TempDir(), extra...)
}

// startServerIn is startServer on a given data directory, as a restart of
// the server.
func startServerIn(t *testing.T, dataDir string, extra ...string) *testServer {
	t.Helper()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	s := &testServer{dataDir: dataDir, logs: &lineWriter{}, hostVM: host, stopped: make(chan struct{})}
	cmd := newRootCommand()
	cmd.SetArgs(append([]string{"serve", "--data-dir", s.dataDir,
		"--metadata-addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0",
		"--dev", "--time-scale", "1", "--rate-limit", "0", "--log-format", "json"}, extra...))
	cmd.SetOut(s.logs)
	cmd.SetErr(s.logs)
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go func() {
		defer close(s.stopped)
		s.runErr = cmd.ExecuteContext(ctx)
	}()
	t.Cleanup(s.stop(t))
	s.awaitListeners(t)
	b, err := os.ReadFile(filepath.Join(s.dataDir, tokenFile))
	if err != nil {
		t.Fatalf("admin token: %v", err)
	}
	s.token = strings.TrimSpace(string(b))
	return s
}

// awaitListeners reads the addresses of the listeners from serve's log.
func (s *testServer) awaitListeners(t *testing.T) {
	t.Helper()
	addrs := map[string]string{}
	from := 0
	for addrs["metadata"] == "" || addrs["admin"] == "" {
		line, next, ok := s.logs.next(from, s.stopped)
		if !ok {
			t.Fatalf("serve did not start (err %v); log:\n%s", s.runErr, s.logs)
		}
		from = next
		var rec struct{ Msg, API, Addr string }
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "listening" {
			addrs[rec.API] = rec.Addr
		}
	}
	s.metadataURL = "http://" + addrs["metadata"]
	s.adminURL = "http://" + addrs["admin"]
}

// stop returns the cleanup that stops the server and checks how it ended.
func (s *testServer) stop(t *testing.T) func() {
	return func() {
		s.cancel()
		select {
		case <-s.stopped:
		case <-time.After(waitLimit):
			t.Fatalf("serve did not stop; log:\n%s", s.logs)
		}
		if s.runErr != nil {
			t.Errorf("serve returned %v; log:\n%s", s.runErr, s.logs)
		}
	}
}

// setEnv points the CLI at the server for the rest of the test.
func (s *testServer) setEnv(t *testing.T) {
	t.Helper()
	t.Setenv(serverEnv, s.adminURL)
	t.Setenv(tokenEnv, s.token)
	t.Setenv(client.EndpointEnv, s.metadataURL)
}

// runCLI runs a forewarn command line in-process and returns its output
// (stdout and stderr).
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := newCLI(args, &out).ExecuteContext(t.Context())
	return out.String(), err
}

// newCLI returns the root command set to run args, writing to out.
func newCLI(args []string, out io.Writer) *cobra.Command {
	cmd := newRootCommand()
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(out)
	return cmd
}

// mustRun runs a command line that must succeed.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, err := runCLI(t, args...)
	if err != nil {
		t.Fatalf("forewarn %s: %v\noutput:\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// mustFail runs a command line that must fail with an error containing
// each of want.
func mustFail(t *testing.T, args []string, want ...string) {
	t.Helper()
	out, err := runCLI(t, args...)
	if err == nil {
		t.Fatalf("forewarn %s succeeded, want an error; output:\n%s", strings.Join(args, " "), out)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("forewarn %s: error is not one line: %q", strings.Join(args, " "), err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("forewarn %s: error %q does not say %q", strings.Join(args, " "), err, w)
		}
	}
}

// mustJSON runs a command line that must succeed and decodes its output.
func mustJSON[T any](t *testing.T, args ...string) T {
	t.Helper()
	out := mustRun(t, args...)
	var v T
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("forewarn %s: output is not the JSON expected: %v\n%s", strings.Join(args, " "), err, out)
	}
	return v
}

// rows splits a table into its rows of fields, the header first.
func rows(t *testing.T, out string) [][]string {
	t.Helper()
	var rs [][]string
	for line := range strings.Lines(strings.TrimSpace(out)) {
		rs = append(rs, strings.Fields(line))
	}
	if len(rs) == 0 {
		t.Fatalf("no table in output %q", out)
	}
	return rs
}

// lineWriter collects what is written to it as lines and lets a test wait
// for the next one. It is safe for concurrent use.
type lineWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	lines   []string
	partial string
	changed chan struct{} // closed and replaced at every new line
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	text := w.partial + string(p)
	parts := strings.Split(text, "\n")
	w.partial = parts[len(parts)-1]
	if len(parts) > 1 {
		w.lines = append(w.lines, parts[:len(parts)-1]...)
		if w.changed != nil {
			close(w.changed)
			w.changed = nil
		}
	}
	return len(p), nil
}

// String returns everything written.
func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// next returns the line numbered i (from 0) and i+1, waiting for it until
// done is closed or waitLimit passes; ok is false then.
func (w *lineWriter) next(i int, done <-chan struct{}) (line string, nextIndex int, ok bool) {
	limit := time.After(waitLimit)
	for {
		w.mu.Lock()
		if i < len(w.lines) {
			line := w.lines[i]
			w.mu.Unlock()
			return line, i + 1, true
		}
		if w.changed == nil {
			w.changed = make(chan struct{})
		}
		changed := w.changed
		w.mu.Unlock()
		select {
		case <-changed:
		case <-done:
			return "", i, false
		case <-limit:
			return "", i, false
		}
	}
}

// await returns the index after the first line from i on that contains
// every one of want, failing the test if none comes.
func (w *lineWriter) await(t *testing.T, i int, done <-chan struct{}, want ...string) int {
	t.Helper()
	for {
		line, next, ok := w.next(i, done)
		if !ok {
			t.Fatalf("no line with %q; output:\n%s", want, w)
		}
		i = next
		if containsAll(line, want) {
			return i
		}
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
