package main

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn/client"
)

// parseServe parses a serve command line as serve does before it runs,
// --config file and --dev defaults included, and returns the options.
func parseServe(t *testing.T, args ...string) (*serveOptions, error) {
	t.Helper()
	o := newServeOptions()
	cmd := o.command()
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	return o, o.prepare(cmd)
}

// TestServeConfig checks that a --config file sets serve's flags, that the
// command line wins, and that --dev's defaults do not override the file.
func TestServeConfig(t *testing.T) {
	path := writeFile(t, "serve.yaml", `# a comment
data-dir: /var/lib/forewarn
dev: true
time-scale: 7
location: from-file
max-user-ops: 3
enable-idle: 2d
actuator: exec
exec-command: 'echo "$FOREWARN_VM"'
exec-attempts: 9
`)
	o, err := parseServe(t, "--config", path, "--location", "from-cli", "--max-user-ops", "4")
	if err != nil {
		t.Fatal(err)
	}
	want := serveOptions{dataDir: "/var/lib/forewarn", dev: true, timeScale: 7, location: "from-cli", maxUserOps: 4,
		enableIdle: durationValue(48 * time.Hour), actuator: "exec"}
	got := serveOptions{dataDir: o.dataDir, dev: o.dev, timeScale: o.timeScale, location: o.location,
		maxUserOps: o.maxUserOps, enableIdle: o.enableIdle, actuator: o.actuator}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("options = %+v, want %+v", got, want)
	}
	if o.exec.command != `echo "$FOREWARN_VM"` || o.exec.attempts != 9 || o.exec.timeout != durationValue(10*time.Minute) {
		t.Errorf("exec options = %+v", o.exec)
	}
	if o.historyKeep != 10000 || o.rateLimit != 5 {
		t.Errorf("keys left out lost their defaults: history-keep %d, rate-limit %g", o.historyKeep, o.rateLimit)
	}

	dev := writeFile(t, "dev.yaml", "dev: true\n")
	if o, err := parseServe(t, "--config", dev); err != nil || o.timeScale != 60 {
		t.Errorf("dev: true in the file: time scale %g (%v), want --dev's 60", o.timeScale, err)
	}
	if o, err := parseServe(t, "--config", dev, "--time-scale", "2"); err != nil || o.timeScale != 2 {
		t.Errorf("dev: true in the file, --time-scale 2: time scale %g (%v)", o.timeScale, err)
	}
	empty := writeFile(t, "empty.yaml", "# nothing here\n")
	if o, err := parseServe(t, "--config", empty); err != nil || o.dataDir != "./forewarn-data" {
		t.Errorf("an empty file: %+v, %v", o, err)
	}
}

// TestServeConfigExample checks that examples/serve.yaml sets what it says.
func TestServeConfigExample(t *testing.T) {
	o, err := parseServe(t, "--config", filepath.Join("..", "..", "examples", "serve.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !o.dev || o.timeScale != 60 || o.fleet != "examples/fleet.yaml" || o.actuator != actuatorSimulate ||
		o.metadataAddr != "127.0.0.1:8169" || o.shutdownTimeout != durationValue(10*time.Second) {
		t.Errorf("examples/serve.yaml gave %+v", o)
	}
	if err := o.check(); err != nil {
		t.Errorf("examples/serve.yaml: %v", err)
	}
}

// TestServeConfigErrors checks that a bad --config file is refused with
// its line and key.
func TestServeConfigErrors(t *testing.T) {
	for _, c := range []struct{ content, want string }{
		{"dev: true\ncolour: red\n", `:2: unknown key "colour"`},
		{"dev: true\ntime-scale: fast\n", `:2: time-scale: invalid value "fast"`},
		{"enable-idle: 3x\n", `:1: enable-idle: invalid value "3x"`},
		{"dev: yes\n", `:1: dev: invalid value "yes"`},
		{"location: [a, b]\n", ":1: location: want a single value"},
		{"location:\n", ":1: location: no value"},
		{"location: a\nlocation: b\n", `:2: key "location" is given twice`},
		{"config: other.yaml\n", `:1: unknown key "config"`},
		{"--dev: true\n", `:1: unknown key "--dev"`},
		{"- dev\n", ":1: want a mapping"},
		{"dev: true\n  x: : y\n", "line 2"},
	} {
		path := writeFile(t, "serve.yaml", c.content)
		_, err := parseServe(t, "--config", path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("config %q: error %v, want %q", c.content, err, c.want)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("config %q: error of several lines: %q", c.content, err)
		}
	}
	_, err := parseServe(t, "--config", filepath.Join(t.TempDir(), "nope.yaml"))
	if err == nil || !strings.Contains(err.Error(), "nope.yaml") {
		t.Errorf("a missing config file: %v", err)
	}
}

// TestServeWithConfig runs serve with a --config file: its values hold,
// and the flags of the command line win.
func TestServeWithConfig(t *testing.T) {
	path := writeFile(t, "serve.yaml", "location: from-file\nmax-user-ops: 1\n")
	srv := startServer(t, "--config", path)
	srv.setEnv(t)
	compute, err := client.New(client.WithEndpoint(srv.metadataURL)).Instance(t.Context())
	if err != nil || compute.Location != "from-file" {
		t.Errorf("instance metadata: %+v, %v; want location from-file", compute, err)
	}
	mustRun(t, "vm", "create", "second", "--scope", "default")
	mustRun(t, "vm", "restart", srv.hostVM)
	mustFail(t, []string{"vm", "restart", "second"}, "1 user operation in flight, the most allowed (serve --max-user-ops)") // max-user-ops: 1

	cli := startServer(t, "--config", path, "--location", "from-cli")
	compute, err = client.New(client.WithEndpoint(cli.metadataURL)).Instance(t.Context())
	if err != nil || compute.Location != "from-cli" {
		t.Errorf("instance metadata: %+v, %v; want location from-cli", compute, err)
	}
}

// TestServeActuatorFlags checks the errors of the actuator flags.
func TestServeActuatorFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--actuator", "exec"}, "--actuator exec needs --exec-command"},
		{[]string{"--actuator", "ssh"}, `--actuator: "ssh" is not simulate or exec`},
		{[]string{"--exec-command", "true"}, "--exec-command needs --actuator exec"},
		{[]string{"--actuator", "exec", "--exec-command", "true", "--exec-attempts", "0"}, "--exec-attempts must be at least 1"},
		{[]string{"--actuator", "exec", "--exec-command", "true", "--exec-timeout", "0"}, "--exec-timeout must be more than 0"},
		{[]string{"--admin-request-timeout", "0s"}, "--admin-request-timeout must be more than 0"},
		{[]string{"--actuator", "exec", "--exec-command", "true", "--exec-backoff", "0"}, "--exec-backoff must be more than 0"},
		{[]string{"--actuator", "exec", "--exec-command", "reboot {{.Nope}}"}, "--exec-command"},
	} {
		if err := serveError(t, c.args...); !strings.Contains(err.Error(), c.want) {
			t.Errorf("serve %q: %v, want %q", c.args, err, c.want)
		}
	}
}
