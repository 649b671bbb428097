package e2e

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/forewarn/forewarn/admin"
)

// binary is the forewarn binary built for the tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "forewarn-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "forewarn")
	build := exec.Command("go", "build", "-race", "-o", binary, "../cmd/forewarn")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build forewarn:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// server is one forewarn serve process.
type server struct {
	t        testing.TB
	dataDir  string
	metaAddr string
	admAddr  string
	cmd      *exec.Cmd
	exited   chan error
	log      *syncLog
	admin    *admin.Client
	// signalled is set before the test first signals the process (stop):
	// an error of a request to it may be that signal's doing only then.
	signalled atomic.Bool
}

// freeAddr returns a loopback address with a port nobody listens on, below
// the kernel's range for outgoing connections (32768 and up by default):
// the tests open and close many connections from 127.0.0.1, any of which
// could take a port from that range before the server binds it.
func freeAddr(t testing.TB) string {
	t.Helper()
	for range 100 {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", 20000+rand.IntN(12000)))
		if err == nil {
			defer ln.Close()
			return ln.Addr().String()
		}
	}
	t.Fatal("no free port from 20000 to 31999")
	return ""
}

// startServer starts forewarn serve on dataDir and waits until its admin
// API and metadata endpoint answer. It is killed at the end of the test if still running.
func startServer(t testing.TB, dataDir string, extra ...string) *server {
	t.Helper()
	s := launch(t, append([]string{"--data-dir", dataDir}, extra...)...)
	s.dataDir = dataDir
	token, err := os.ReadFile(filepath.Join(dataDir, "admin.token"))
	if err != nil {
		t.Fatal(err)
	}
	s.admin = admin.NewClient("http://"+s.admAddr, strings.TrimSpace(string(token)))
	return s
}

// launch starts forewarn serve with extra flags on free loopback addresses
// and waits until its admin API and its metadata endpoint answer; the
// caller sets s.admin. A server
// that finds a port taken after all is started again on others. It is
// killed at the end of the test if still running.
func launch(t testing.TB, extra ...string) *server {
	t.Helper()
	for attempt := 1; ; attempt++ {
		s, err := tryLaunch(t, extra)
		if err == nil {
			return s
		}
		if attempt == 5 || !strings.Contains(err.Error(), "address already in use") {
			t.Fatal(err)
		}
	}
}

// tryLaunch is one attempt of launch.
func tryLaunch(t testing.TB, extra []string) (*server, error) {
	return launchOn(t, freeAddr(t), freeAddr(t), extra)
}

// launchOn starts forewarn serve with extra flags on the given addresses
// and waits until both its listeners answer.
func launchOn(t testing.TB, metaAddr, admAddr string, extra []string) (*server, error) {
	s := &server{t: t, metaAddr: metaAddr, admAddr: admAddr,
		exited: make(chan error, 1), log: &syncLog{}}
	args := append([]string{"serve", "--metadata-addr", s.metaAddr,
		"--admin-addr", s.admAddr, "--rate-limit", "0"}, extra...)
	s.cmd = exec.Command(binary, args...)
	s.cmd.Stderr = s.log
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start forewarn: %w", err)
	}
	go func() { s.exited <- s.cmd.Wait() }()
	t.Cleanup(func() {
		s.cmd.Process.Kill()
		<-s.exited
		if t.Failed() {
			t.Logf("server log:\n%s", s.log.String())
		}
	})
	return s, s.waitReady()
}

// waitReady waits until both listeners answer, or the server exits: the
// admin API's /healthz, and the metadata endpoint, asked for a path it does
// not serve (its 404 notes no request of any scope, which would enable it).
func (s *server) waitReady() error {
	deadline := time.Now().Add(30 * time.Second)
	for _, url := range []string{"http://" + s.admAddr + "/healthz", "http://" + s.metaAddr + "/forewarn-e2e-ready"} {
		for !answers(url) {
			if time.Now().After(deadline) {
				return fmt.Errorf("forewarn never answered on %s\n%s", url, s.log.String())
			}
			select {
			case err := <-s.exited:
				s.exited <- err // for the cleanup
				return fmt.Errorf("forewarn exited at start: %v\n%s", err, s.log.String())
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	return nil
}

// answers reports whether a GET of url gets an HTTP answer, whatever its
// status, within 5 s.
func answers(url string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return true
}

// stop sends sig and returns the process's exit error.
func (s *server) stop(sig syscall.Signal) error {
	s.t.Helper()
	s.signalled.Store(true)
	if err := s.cmd.Process.Signal(sig); err != nil {
		s.t.Fatal(err)
	}
	select {
	case err := <-s.exited:
		s.exited <- err // for the cleanup
		return err
	case <-time.After(30 * time.Second):
		s.t.Fatalf("forewarn did not exit on %v", sig)
		return nil
	}
}

// get asks the metadata endpoint as the host's own VM (127.0.0.1).
func (s *server) get(query string) (*http.Response, string) {
	s.t.Helper()
	resp, body, err := s.tryGet(query)
	if err != nil {
		s.t.Fatalf("GET %s: %v", query, err)
	}
	return resp, body
}

// tryGet is get for goroutines other than the test's.
func (s *server) tryGet(query string) (*http.Response, string, error) {
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet,
		"http://"+s.metaAddr+"/metadata/scheduledevents?"+query, nil)
	req.Header.Set("Metadata", "true")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, string(body), err
}
