package agent

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestConfigProblems: a configuration is refused with every problem it has,
// one line each, led by the key and its line.
func TestConfigProblems(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"the issue's file", `endpoint: http//10.0.0.1
hooks:
  Reboot:
    on_scheduled:
      comand: kubectl drain
approval:
  Reboot: always
`, []string{
			`endpoint (line 1): "http//10.0.0.1": want http://host[:port] (or host[:port] alone)`,
			"hooks.Reboot.on_scheduled.comand (line 5): unknown key (did you mean command?)",
			`approval.Reboot (line 7): unknown policy "always": want never, after-hook or immediately`,
		}},
		{"every key", `endpoint: ftp://10.0.0.1
api_version: 2020-7-1
vm_name: ' web-0'
state_file: [a]
scope_events: maybe
hooks:
  reboot:
    on_scheduled: {command: ' ', timeout: 5}
  Freeze:
    on_started: drain
    on_finished: {command: x}
approval: {Freeze: after_hook, Redeploy: }
leader_only: 1
leader_fallback: -5s
webhook:
  url: 'http://hooks.example:99999/x'
  headers: {'Bad Name': v}
  template: '{{'
  retries: 1.5
  timeout: 10
metrics_addr: 9469
`, []string{
			`endpoint (line 1): "ftp://10.0.0.1": want http:// or https:// and a host`,
			`api_version (line 2): "2020-7-1": want a date such as 2020-07-01`,
			`vm_name (line 3): " web-0" has spaces around it: no Resources would match it`,
			"state_file (line 4): want a string, got a list",
			`scope_events (line 5): want true or false, got "maybe"`,
			"hooks.reboot (line 7): unknown event type (did you mean Reboot?)",
			"hooks.reboot.on_scheduled (line 8): no command",
			`hooks.reboot.on_scheduled.timeout (line 8): invalid duration "5": want a unit, such as 5s`,
			`hooks.Freeze.on_started (line 10): want a mapping (keys: command, timeout), got "drain"`,
			"hooks.Freeze.on_finished (line 11): unknown key: want on_scheduled, on_started, on_completed or on_cancelled",
			`approval.Freeze (line 12): unknown policy "after_hook" (did you mean after-hook?)`,
			"approval.Redeploy (line 12): no policy: want never, after-hook or immediately",
			`leader_only (line 13): want true or false, got "1"`,
			`leader_fallback (line 14): negative duration "-5s"`,
			`webhook.url (line 16): "http://hooks.example:99999/x": port 99999: want 1 to 65535`,
			"webhook.headers.Bad Name (line 17): not a header name: want letters, digits and !#$%&'*+-.^_`|~ only",
			"webhook.template (line 18): template: webhook:1: unclosed action",
			`webhook.retries (line 19): want a whole number, got "1.5"`,
			`webhook.timeout (line 20): invalid duration "10": want a unit, such as 10s`,
			`metrics_addr (line 21): "9469": want host:port, such as 127.0.0.1:9469`,
		}},
		{"keys misspelt", "endpont: x\nstate-file: y\nHooks: {}\nwebhooks: {}\nleader_fallbak: 1s\nprovider: azure\n", []string{
			"endpont (line 1): unknown key (did you mean endpoint?)",
			"state-file (line 2): unknown key (did you mean state_file?)",
			"Hooks (line 3): unknown key (did you mean hooks?)",
			"webhooks (line 4): unknown key (did you mean webhook?)",
			"leader_fallbak (line 5): unknown key (did you mean leader_fallback?)",
			"provider (line 6): unknown key: want endpoint, source_addr, api_version, vm_name, state_file, scope_events, hooks, approval, leader_only, leader_fallback, webhook or metrics_addr",
		}},
		{"given twice", "approval: {Reboot: never}\napproval: {Reboot: immediately}\nhooks: {Reboot: {}, Reboot: {}}\n", []string{
			"approval (line 2): given twice (first at line 1)",
			"hooks.Reboot (line 3): given twice (first at line 3)",
		}},
		{"endpoints", "endpoint: http://169.254.169.254/metadata/scheduledevents\n", []string{
			`endpoint (line 1): "http://169.254.169.254/metadata/schedule"...: want the service's base URL, without /metadata/...: the agent adds the paths`,
		}},
		{"source addresses", "source_addr: 127.0.0.2:80\n", []string{
			`source_addr (line 1): "127.0.0.2:80": want an IP address of this host, such as 127.0.0.2`,
		}},
		{"a source address that is none", "endpoint: 127.0.0.1:8169\nsource_addr: nonsense\n", []string{
			`source_addr (line 2): "nonsense": want an IP address of this host, such as 127.0.0.2`,
		}},
		{"endpoint with a query", "endpoint: 'http://x/?a=1'\n", []string{
			`endpoint (line 1): "http://x/?a=1": want a base URL, without a query or fragment`,
		}},
		{"webhook without a url", "webhook: {retries: -2}\n", []string{
			"webhook (line 1): no url",
			"webhook.retries (line 1): -2: want -1 (no retries), 0 (the default, 3) or more",
		}},
		{"a merge that adds a typo", "hooks:\n  Reboot: &d\n    on_scheduled: {command: x}\n  Redeploy:\n    <<: *d\n    on_started: {comand: y}\n", []string{
			"hooks.Redeploy.on_started.comand (line 6): unknown key (did you mean command?)",
		}},
		{"a mapping that merges itself", "hooks: &h {<<: *h}\n", []string{
			"hooks (line 1): <<: a mapping merges itself",
		}},
		{"not a mapping", "- endpoint\n", []string{
			"line 1: want a mapping (keys: endpoint, source_addr, api_version, vm_name, state_file, scope_events, hooks, approval, leader_only, leader_fallback, webhook, metrics_addr), got a list",
		}},
		{"YAML syntax", "hooks:\n  Reboot: {on_scheduled: {command: x}\n", []string{
			"line 2: invalid YAML: did not find expected ',' or '}'",
		}},
		{"a second document", "endpoint: http://127.0.0.1:8169\n---\nendpont: http://10.0.0.1\n", []string{
			"line 2: a second YAML document: the configuration is a single document",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(tc.yaml))
			want := "agent config: " + tc.want[0]
			if len(tc.want) > 1 {
				want = "agent config: " + strconv.Itoa(len(tc.want)) + " problems:\n  " + strings.Join(tc.want, "\n  ")
			}
			if err == nil || err.Error() != want {
				t.Fatalf("error:\n%v\nwant:\n%s", err, want)
			}
		})
	}
}

// TestConfigReadsLikeYAML: what ParseConfig accepts, it reads as yaml.v3
// would: anchors, merges (the mapping's own keys win), nulls as absent keys.
func TestConfigReadsLikeYAML(t *testing.T) {
	cfg, err := ParseConfig([]byte(`
endpoint: 127.0.0.1:8169
vm_name: ~
hooks:
  Reboot: &drain
    on_scheduled: {command: drain, timeout: 9m}
    on_started: ~
  Redeploy: *drain
  Terminate:
    <<: *drain
    on_scheduled: {command: fast-drain}
approval: {default: after-hook}
webhook:
  url: https://hooks.example/x
  retries: -1
`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Endpoint != "127.0.0.1:8169" || cfg.VMName != "" || cfg.Webhook.Retries != -1 || cfg.policyFor("Freeze") != AfterHook {
		t.Fatalf("config %+v", cfg)
	}
	redeploy, terminate := cfg.Hooks["Redeploy"], cfg.Hooks["Terminate"]
	if redeploy.OnScheduled.Command != "drain" || time.Duration(redeploy.OnScheduled.Timeout) != 9*time.Minute ||
		redeploy.OnStarted != nil {
		t.Fatalf("Redeploy %+v", redeploy)
	}
	if terminate.OnScheduled.Command != "fast-drain" || terminate.OnScheduled.Timeout != 0 {
		t.Fatalf("Terminate on_scheduled %+v, want the mapping's own", *terminate.OnScheduled)
	}
}

// TestNewRefusesAnUnwritableStateFile: a state file New cannot write is
// refused at start, with the other problems, rather than at the first
// event. Its directory is a regular file, which stops root too.
func TestNewRefusesAnUnwritableStateFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := ReadConfig(writeConfig(t, "state_file: "+file+"/state.json\napproval: {Reboot: always}\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(*cfg, nil)
	want := "agent config " + cfg.src.file + ": 2 problems:\n" +
		"  state_file (line 1): " + file + "/state.json: " + file + " is not a directory\n" +
		`  approval.Reboot (line 2): unknown policy "always": want never, after-hook or immediately`
	if err == nil || err.Error() != want {
		t.Fatalf("error:\n%v\nwant:\n%s", err, want)
	}
}

// TestNewLeavesNothingBehind: checking the state file leaves no file
// next to it and creates no missing directory (the first save does), and
// a directory above it that is a file is refused too.
func TestNewLeavesNothingBehind(t *testing.T) {
	dir := t.TempDir()
	for _, path := range []string{filepath.Join(dir, "state.json"), filepath.Join(dir, "a", "b", "state.json")} {
		if _, err := New(Config{StateFile: path}, nil); err != nil {
			t.Fatal(err)
		}
		if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
			t.Fatalf("%s: %s holds %v (%v), want nothing", path, dir, entries, err)
		}
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := New(Config{StateFile: filepath.Join(file, "a", "state.json")}, nil)
	want := "agent config: state_file: " + file + "/a/state.json: " + file + " is not a directory"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s", err, want)
	}
}

// TestNewProblemsNameTheirSource: a value set by a flag is blamed on the
// flag, and the endpoint of FOREWARN_ENDPOINT is checked when the
// configuration names none.
func TestNewProblemsNameTheirSource(t *testing.T) {
	cfg, err := ReadConfig(writeConfig(t, "endpoint: http://127.0.0.1:8169\nmetrics_addr: [x]\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.StateFile = filepath.Join(t.TempDir(), "state.json")
	cfg.Endpoint = "ftp://x"
	cfg.SetBy("endpoint", "--endpoint")
	_, err = New(*cfg, nil)
	want := `: 2 problems:
  --endpoint: "ftp://x": want http:// or https:// and a host
  metrics_addr (line 2): want a string, got a list`
	if err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("error %v, want ...%s", err, want)
	}

	t.Setenv("FOREWARN_ENDPOINT", "10.0.0.1/metadata")
	_, err = New(Config{StateFile: cfg.StateFile}, nil)
	want = `agent config: $FOREWARN_ENDPOINT: "10.0.0.1/metadata": want http://host[:port] (or host[:port] alone)`
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s", err, want)
	}
}

// TestConfigSourceAddr: source_addr takes an IPv4 or IPv6 address, and
// does not go with an HTTPClient, which is used as it is.
func TestConfigSourceAddr(t *testing.T) {
	for _, addr := range []string{"127.0.0.2", "::1"} {
		cfg, err := ParseConfig([]byte("source_addr: '" + addr + "'\n"))
		if err != nil || cfg.SourceAddr != addr {
			t.Fatalf("source_addr %s: %+v, %v", addr, cfg, err)
		}
	}
	cfg := &Config{SourceAddr: "127.0.0.2", HTTPClient: &http.Client{}}
	err := cfg.Validate()
	want := "agent config: source_addr: set with Config.HTTPClient, which is used as it is: bind its dialer instead"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s", err, want)
	}
}

// writeConfig writes a configuration file and returns its path.
func writeConfig(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "agent.yaml")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
