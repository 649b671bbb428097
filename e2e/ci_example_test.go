package e2e

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestCIExample runs examples/ci as its GitHub Actions workflow does, with
// podman for docker: the image as the service container, an application
// under test (here a small HTTP server that drains and comes back) with
// forewarn agent and examples/ci/agent.yaml as its maintenance hooks, and
// examples/ci/drill.sh, which makes the host a VM and runs the drill. The
// drill passes, its JUnit report holds every check, and the application
// was drained and made ready once per event.
func TestCIExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a container image")
	}
	requirePodman(t)
	c := runImage(t, buildImage(t))
	app := newDrainingApp()
	srv := httptest.NewServer(app)
	defer srv.Close()

	dir := t.TempDir()
	env := append(os.Environ(),
		"APP_URL="+srv.URL,
		"PATH="+filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"CONTAINER_ENGINE=podman",
		"FOREWARN_ENDPOINT=http://"+c.metaAddr,
		"FOREWARN_SERVER=http://"+c.admAddr,
	)
	agent := exec.Command(binary, "agent", "--config", "../examples/ci/agent.yaml", "--vm-name", "ci-runner",
		"--endpoint", "http://"+c.metaAddr, "--state-file", filepath.Join(dir, "agent.json"))
	var agentLog bytes.Buffer
	agent.Env, agent.Stdout, agent.Stderr = env, &agentLog, &agentLog
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = agent.Process.Kill()
		_ = agent.Wait()
		if t.Failed() {
			t.Logf("agent log:\n%s", agentLog.String())
		}
	}()

	script, err := filepath.Abs("../examples/ci/drill.sh")
	if err != nil {
		t.Fatal(err)
	}
	drill := exec.Command("sh", script, c.name)
	drill.Dir, drill.Env = dir, env
	out, err := drill.CombinedOutput()
	if err != nil {
		t.Fatalf("drill.sh: %v\n%s", err, out)
	}
	d := &drillRun{dir: dir}
	data, err := os.ReadFile(filepath.Join(dir, "drill-junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "junit.xml"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	// waitForPolls, then per event: approved in time, not unapproved, the
	// VM polls, healthy.
	if j := d.junit(t); j.Tests != 1+2*4 || j.Failures != 0 {
		t.Errorf("junit: %d tests, %d failures; want 9 and 0\n%s", j.Tests, j.Failures, out)
	}
	if md, err := os.ReadFile(filepath.Join(dir, "drill-report.md")); err != nil || !bytes.Contains(md, []byte("PASSED")) {
		t.Errorf("drill-report.md: %v\n%s", err, md)
	}
	if drains, readies := app.counts(); drains != 2 || readies != 2 {
		t.Errorf("the application was drained %d times and made ready %d times, want 2 and 2", drains, readies)
	}
}

// drainingApp is an application under test: POST /drain takes it out of
// service, POST /ready brings it back, GET /healthz says which.
type drainingApp struct {
	mu              sync.Mutex
	drained         bool
	drains, readies int
}

func newDrainingApp() *drainingApp { return &drainingApp{} }

func (a *drainingApp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch r.Method + " " + r.URL.Path {
	case "POST /drain":
		a.drained, a.drains = true, a.drains+1
	case "POST /ready":
		a.drained, a.readies = false, a.readies+1
	case "GET /healthz":
		if a.drained {
			http.Error(w, "draining", http.StatusServiceUnavailable)
		}
	default:
		http.NotFound(w, r)
	}
}

func (a *drainingApp) counts() (drains, readies int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.drains, a.readies
}

// TestCIWorkflow checks the example workflow: valid YAML, the image as a
// service with both ports published, and steps that use the files of
// examples/ci, which exist.
func TestCIWorkflow(t *testing.T) {
	data, err := os.ReadFile("../examples/ci/maintenance-drill.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Services map[string]struct {
				Image string
				Ports []string
			}
			Steps []struct{ Run string }
		}
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	job, ok := wf.Jobs["drill"]
	if !ok {
		t.Fatal("no job drill")
	}
	svc := job.Services["forewarn"]
	if !strings.Contains(svc.Image, "forewarn:") || strings.Join(svc.Ports, ",") != "8169:8169,8170:8170" {
		t.Errorf("service %+v", svc)
	}
	var runs strings.Builder
	for _, s := range job.Steps {
		runs.WriteString(s.Run)
	}
	for _, f := range []string{"examples/ci/drill.sh", "examples/ci/agent.yaml"} {
		if !strings.Contains(runs.String(), f) {
			t.Errorf("no step uses %s", f)
		}
		if _, err := os.Stat("../" + f); err != nil {
			t.Error(err)
		}
	}
}
