package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forewarn/forewarn/agent"
)

// TestAgentExamples: examples/agent.yaml loads, and the systemd unit's
// ExecStart is a forewarn agent command line whose flags parse.
func TestAgentExamples(t *testing.T) {
	cfg, err := agent.LoadConfig("../../examples/agent.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Approval["Reboot"] != agent.AfterHook || cfg.Hooks["Redeploy"].OnScheduled == nil ||
		cfg.Hooks["Freeze"].OnScheduled != nil || cfg.LeaderOnly || cfg.Webhook != nil {
		t.Fatalf("examples/agent.yaml: %+v", cfg)
	}
	unit, err := os.ReadFile("../../examples/forewarn-agent.service")
	if err != nil {
		t.Fatal(err)
	}
	var exec []string
	for line := range strings.SplitSeq(string(unit), "\n") {
		if v, ok := strings.CutPrefix(line, "ExecStart="); ok {
			exec = strings.Fields(v)
		}
	}
	if len(exec) < 2 || filepath.Base(exec[0]) != "forewarn" || exec[1] != "agent" {
		t.Fatalf("ExecStart %q: want forewarn agent ...", exec)
	}
	for _, want := range []string{"Restart=always", "StateDirectory=forewarn-agent"} {
		if !strings.Contains(string(unit), want) {
			t.Errorf("unit lacks %s", want)
		}
	}
	o, cmd := agentCommandWithOptions()
	if err := cmd.ParseFlags(exec[2:]); err != nil {
		t.Fatalf("ExecStart flags %q: %v", exec[2:], err)
	}
	if o.config != "/etc/forewarn/agent.yaml" {
		t.Fatalf("--config %q", o.config)
	}
}

// TestAgentFlagsOverrideConfig: the flags win over the file's keys.
func TestAgentFlagsOverrideConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.yaml")
	if err := os.WriteFile(path, []byte("endpoint: http://10.0.0.1\nvm_name: a\nstate_file: /tmp/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, cmd := agentCommandWithOptions()
	if err := cmd.ParseFlags([]string{"--config", path, "--endpoint", "127.0.0.1:8169", "--metrics-addr", "127.0.0.1:0"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := o.agentConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Endpoint != "127.0.0.1:8169" || cfg.VMName != "a" || cfg.StateFile != "/tmp/x" || cfg.MetricsAddr != "127.0.0.1:0" {
		t.Fatalf("config %+v", cfg)
	}
}

// TestAgentBadConfig: a bad configuration, with bad flags, exits non-zero
// with every problem on a line of its own, led by its key and line or its
// flag, and starts nothing: no metrics listener, no state file, no log of
// a start.
func TestAgentBadConfig(t *testing.T) {
	dir := t.TempDir()
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "agent.yaml")
	config := "endpoint: http://127.0.0.1:8169\n" + // --endpoint overrides it
		"state_file: " + notDir + "/state.json\n" +
		"hooks:\n" +
		"  Reboot:\n" +
		"    on_scheduled:\n" +
		"      comand: kubectl drain\n" +
		"approval:\n" +
		"  Reboot: always\n"
	if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	metrics := freeAddr(t)
	args := []string{"agent", "--config", path, "--endpoint", "http//10.0.0.1", "--metrics-addr", metrics}
	want := "forewarn: agent config " + path + ": 4 problems:\n" +
		`  --endpoint: "http//10.0.0.1": want http://host[:port] (or host[:port] alone)` + "\n" +
		"  state_file (line 2): " + notDir + "/state.json: " + notDir + " is not a directory\n" +
		"  hooks.Reboot.on_scheduled.comand (line 6): unknown key (did you mean command?)\n" +
		`  approval.Reboot (line 8): unknown policy "always": want never, after-hook or immediately` + "\n"
	code, stderr := runMain(t, args...)
	if code == 0 || stderr != want {
		t.Fatalf("exit %d, stderr:\n%s\nwant a non-zero exit and:\n%s", code, stderr, want)
	}
	if conn, err := net.Dial("tcp", metrics); err == nil {
		conn.Close()
		t.Fatalf("something listens on --metrics-addr %s", metrics)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Fatalf("%s holds %v, want only the config and the file", dir, entries)
	}
}

// TestAgentWithoutConfig: without --config the agent says, once, that it
// runs with no hooks, and runs.
func TestAgentWithoutConfig(t *testing.T) {
	out := &lineWriter{}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	cmd := newCLI([]string{"agent", "--endpoint", "http://127.0.0.1:1", "--vm-name", "vm0",
		"--state-file", filepath.Join(t.TempDir(), "state.json")}, out)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	out.await(t, 0, nil, "agent started")
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("agent: %v", err)
	}
	if n := strings.Count(out.String(), noConfigNotice); n != 1 {
		t.Fatalf("the notice %d times, want once:\n%s", n, out)
	}
}

// runMain runs the command line as main does and returns its exit code and
// what it wrote to stderr.
func runMain(t *testing.T, args ...string) (int, string) {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stderr := os.Stderr
	os.Stderr = f
	code := run(t.Context(), args)
	os.Stderr = stderr
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return code, string(b)
}

// freeAddr returns a loopback address with a port nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
