package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// drillRun is one forewarn drill run --serve, with the agents that stand
// for the applications of some VMs.
type drillRun struct {
	dir      string
	metaAddr string
	stdout   bytes.Buffer
	stderr   bytes.Buffer
	code     int
}

// runDrill runs a drill file with --serve and an agent for each of vms
// (name:address), configured by examples/drills/agent.yaml, and waits for
// the drill's end.
func runDrill(t *testing.T, file string, timeScale string, vms ...string) *drillRun {
	t.Helper()
	d := &drillRun{dir: t.TempDir(), metaAddr: freeAddr(t)}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	env := append(os.Environ(), "DRILL_STATE="+d.dir)
	cmd := exec.CommandContext(ctx, binary, "drill", "run", "--serve", "--metadata-addr", d.metaAddr,
		"--time-scale", timeScale, "--junit", filepath.Join(d.dir, "junit.xml"),
		"--report", filepath.Join(d.dir, "report.md"), "-o", "json", file)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, &d.stdout, &d.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	actx, stopAgents := context.WithCancel(ctx)
	var agents []*exec.Cmd
	for _, vm := range vms {
		name, addr, _ := strings.Cut(vm, ":")
		a := exec.CommandContext(actx, binary, "agent", "--config", "../examples/drills/agent.yaml",
			"--vm-name", name, "--source-addr", addr, "--endpoint", "http://"+d.metaAddr,
			"--state-file", filepath.Join(d.dir, name+".json"))
		a.Env = env
		log, err := os.Create(filepath.Join(d.dir, name+".log"))
		if err != nil {
			t.Fatal(err)
		}
		defer log.Close()
		a.Stdout, a.Stderr = log, log
		if err := a.Start(); err != nil {
			t.Fatal(err)
		}
		agents = append(agents, a)
	}
	err := cmd.Wait()
	stopAgents()
	for _, a := range agents {
		_ = a.Wait()
	}
	if exit, ok := errors.AsType[*exec.ExitError](err); ok {
		d.code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("drill: %v\n%s", err, d.stderr.String())
	}
	return d
}

// report decodes the drill's JSON report.
func (d *drillRun) report(t *testing.T) map[string]any {
	t.Helper()
	var rep map[string]any
	if err := json.Unmarshal(d.stdout.Bytes(), &rep); err != nil {
		t.Fatalf("report: %v\n%s\n%s", err, d.stdout.String(), d.stderr.String())
	}
	return rep
}

// junit is the part of a JUnit XML report the tests read.
type junit struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func (d *drillRun) junit(t *testing.T) junit {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(d.dir, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var j junit
	if err := xml.Unmarshal(data, &j); err != nil {
		t.Fatalf("junit.xml: %v\n%s", err, data)
	}
	return j
}

// TestDrillExamples runs the two drills of examples/drills/ through the
// real binary, with forewarn agent as every VM's application: both pass,
// and the JUnit and Markdown reports say so.
func TestDrillExamples(t *testing.T) {
	for _, tc := range []struct {
		file, scale string
		vms         []string
		checks      int
	}{
		// waitForPolls, then per event: approved in time, not unapproved;
		// per VM: polls, healthy.
		{"rolling-reboot.yaml", "60", []string{"web-0:127.0.0.11", "web-1:127.0.0.12", "web-2:127.0.0.13"}, 1 + 3*2 + 3 + 3},
		{"spot-eviction.yaml", "10", []string{"spot-0:127.0.0.21", "spot-1:127.0.0.22"}, 1 + 2 + 2},
	} {
		t.Run(tc.file, func(t *testing.T) {
			d := runDrill(t, filepath.Join("..", "examples", "drills", tc.file), tc.scale, tc.vms...)
			if d.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", d.code, d.stdout.String(), d.stderr.String())
			}
			if rep := d.report(t); rep["passed"] != true {
				t.Errorf("report: passed = %v", rep["passed"])
			}
			if j := d.junit(t); j.Tests != tc.checks || j.Failures != 0 {
				t.Errorf("junit: %d tests, %d failures; want %d and 0", j.Tests, j.Failures, tc.checks)
			}
			md, err := os.ReadFile(filepath.Join(d.dir, "report.md"))
			if err != nil || !bytes.Contains(md, []byte(": PASSED: ")) {
				t.Errorf("report.md: %v\n%s", err, md)
			}
			if !strings.Contains(d.stderr.String(), "saw event") {
				t.Errorf("no live line says a VM saw an event:\n%s", d.stderr.String())
			}
		})
	}
}

// TestDrillFails: web-2 has no application, so its reboot starts
// unapproved at its NotBefore; the drill exits 1 and its JUnit report
// names what failed.
func TestDrillFails(t *testing.T) {
	file := filepath.Join(t.TempDir(), "drill.yaml")
	fleet, err := filepath.Abs("../examples/drills/fleet.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("fleet: "+fleet+"\nsteps:\n  - wait: 1s\n  - restart: web-2\n    expect: {approveWithin: 5s}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := runDrill(t, file, "600", "web-0:127.0.0.11", "web-1:127.0.0.12")
	if d.code != 1 || !strings.Contains(d.stderr.String(), "drill failed: 3 of 5 checks failed") {
		t.Fatalf("exit %d, want 1\n%s", d.code, d.stderr.String())
	}
	var failed []string
	for _, s := range d.junit(t).Suites {
		for _, c := range s.Cases {
			if c.Failure != nil {
				failed = append(failed, c.Name+": "+c.Failure.Message)
			}
		}
	}
	got := strings.Join(failed, "\n")
	for _, want := range []string{
		"Reboot of web-2 is approved by a VM within 5s: event ",
		"started unapproved at its NotBefore",
		"web-2 (scope web) polls: never polled while the step ran",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("JUnit failures:\n%s\nwant one with %q", got, want)
		}
	}
}

// TestDrillCannotRun: a bad drill file, or flags that contradict, exit 2
// with a message that says what is wrong, before anything is done.
func TestDrillCannotRun(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("steps:\n  - restart: web-0\n    wait: 1s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	badFleet := filepath.Join(dir, "badfleet.yaml")
	if err := os.WriteFile(badFleet, []byte("fleet: nofleet.yaml\nsteps:\n  - wait: never\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(dir, "keep.md")
	if err := os.WriteFile(keep, []byte("an older report\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waits := filepath.Join(dir, "waits.yaml")
	if err := os.WriteFile(waits, []byte("steps:\n  - wait: 1s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"drill", "run", bad}, bad + ":2:5: steps[0]: the step does restart and wait"},
		{[]string{"drill", "run", "--serve", "--server", "http://127.0.0.1:1", "../examples/drills/spot-eviction.yaml"}, "give --server or --serve, not both"},
		{[]string{"drill", "run", "--server", "http://127.0.0.1:1", "../examples/drills/spot-eviction.yaml"}, "is forewarn serve running at http://127.0.0.1:1?"},
		{[]string{"drill", "check", bad}, bad + ":2:5: steps[0]: the step does restart and wait"},
		// A drill that names nothing on the server still needs it.
		{[]string{"drill", "run", "--server", "http://127.0.0.1:1", waits}, "is forewarn serve running at http://127.0.0.1:1?"},
		{[]string{"drill", "run", "--metadata-addr", "127.0.0.1:1", waits}, "--metadata-addr is a flag of --serve"},
		{[]string{"drill", "run", "--junit", filepath.Join(dir, "no", "j.xml"), waits}, "--junit: open "},
		{[]string{"drill", "run"}, "accepts 1 arg(s), received 0"},
		{[]string{"drill", "run", "-o", "yaml", waits}, `"yaml" is not table or json`},
		{[]string{"drill", "check"}, "accepts 1 arg(s), received 0"},
		// Every problem at once, the fleet file's too, one a line.
		{[]string{"drill", "check", badFleet}, badFleet + ":1:8: fleet: fleet file: open " + filepath.Join(dir, "nofleet.yaml") +
			": no such file or directory\n" + badFleet + ":3:11: steps[0].wait: \"never\" is not a duration"},
		// A drill that cannot run leaves an older report as it was.
		{[]string{"drill", "run", "--server", "http://127.0.0.1:1", "--report", keep, waits}, "is forewarn serve running"},
	} {
		cmd := exec.Command(binary, tc.args...)
		cmd.Env = append(os.Environ(), "FOREWARN_TOKEN=x")
		out, err := cmd.CombinedOutput()
		exit, _ := errors.AsType[*exec.ExitError](err)
		want := 2
		if tc.args[1] == "check" && len(tc.args) > 2 {
			want = 1
		}
		if exit == nil || exit.ExitCode() != want || !strings.Contains(string(out), tc.want) {
			t.Errorf("forewarn %s: %v\n%s\nwant exit %d and %q", strings.Join(tc.args, " "), err, out, want, tc.want)
		}
	}
	if data, err := os.ReadFile(keep); err != nil || string(data) != "an older report\n" {
		t.Errorf("the older report after a drill that did not run: %q, %v", data, err)
	}
}
