package main

import (
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

// TestAgentBadConfig: an unknown key is refused with its line.
func TestAgentBadConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.yaml")
	if err := os.WriteFile(path, []byte("endpoint: x\nhooks:\n  Reboot:\n    on_schedule:\n      command: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := runCLI(t, "agent", "--config", path)
	if err == nil || !strings.Contains(err.Error(), "line 4") || !strings.Contains(err.Error(), "on_schedule") {
		t.Fatalf("error %v, want line 4 and the key", err)
	}
}
