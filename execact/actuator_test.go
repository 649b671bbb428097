//go:build unix

package execact

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// A command sees the event and the VM in its environment and its template.
func TestEnvironmentAndTemplate(t *testing.T) {
	t.Setenv("EXECACT_TEST_INHERITED", "from the server")
	h := mustNew(t, Config{Command: `out=$DIR/out
printf 'template %s\n' "{{.VM}} {{.EventID}} {{.EventType}} {{.Attempt}}" >>"$out"
printf 'quoted %s\n' {{quote .EventDescription}} >>"$out"
env | grep -e '^FOREWARN_' -e '^EXECACT_TEST_' >>"$out"`})
	e, vm := testEvent(), testVM()
	if err := h.Actuate(context.Background(), e, vm); err != nil {
		t.Fatalf("Actuate: %v", err)
	}
	b, err := os.ReadFile(h.path("out"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for line := range strings.Lines(string(b)) {
		k, v, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
		if strings.HasPrefix(k, "template ") || strings.HasPrefix(k, "quoted ") {
			k, v, _ = strings.Cut(line[:len(line)-1], " ")
		}
		got[k] = v
	}
	want := map[string]string{
		"template":                   "web-1 " + e.ID + " Reboot 1",
		"quoted":                     e.Description,
		"EXECACT_TEST_INHERITED":     "from the server",
		"FOREWARN_EVENT_ID":          e.ID,
		"FOREWARN_EVENT_TYPE":        "Reboot",
		"FOREWARN_EVENT_SOURCE":      "Platform",
		"FOREWARN_EVENT_DESCRIPTION": e.Description,
		"FOREWARN_SCOPE":             "web",
		"FOREWARN_VM":                "web-1",
		"FOREWARN_VM_ID":             vm.ID,
		"FOREWARN_VM_ADDRESSES":      "10.0.0.4,fd00::4",
		"FOREWARN_UPDATE_DOMAIN":     "2",
		"FOREWARN_FAULT_DOMAIN":      "1",
		"FOREWARN_DURATION":          "-1",
		"FOREWARN_ATTEMPT":           "1",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if n := h.counter(t, "forewarn_exec_runs_total", map[string]string{"type": "Reboot", "result": "ok"}); n != 1 {
		t.Errorf("runs ok = %v, want 1", n)
	}
}

// A command that fails twice is retried after the backoff on the clock, and
// the third attempt's success ends the run.
func TestRetryUntilSuccess(t *testing.T) {
	h := mustNew(t, Config{Backoff: 2 * time.Second, Command: `
echo "$FOREWARN_VM $FOREWARN_EVENT_ID $FOREWARN_ATTEMPT" >>$DIR/calls
n=$(wc -l <$DIR/calls)
echo "attempt $n" ; [ "$n" -ge 3 ]`})
	start := h.clock.Now()
	done := h.start(context.Background(), testEvent(), testVM())
	h.advance(t, 2*time.Second, 1)
	h.advance(t, 4*time.Second, 2)
	if err := wait(t, done, 10*time.Second); err != nil {
		t.Fatalf("Actuate: %v", err)
	}
	b, err := os.ReadFile(h.path("calls"))
	if err != nil {
		t.Fatal(err)
	}
	id := testEvent().ID
	want := "web-1 " + id + " 1\nweb-1 " + id + " 2\nweb-1 " + id + " 3\n"
	if string(b) != want {
		t.Errorf("calls:\n%s\nwant:\n%s", b, want)
	}
	if d := h.clock.Since(start); d != 6*time.Second {
		t.Errorf("waited %v on the clock, want 6s", d)
	}
	for result, want := range map[string]float64{"fail": 2, "ok": 1} {
		if n := h.counter(t, "forewarn_exec_runs_total", map[string]string{"type": "Reboot", "result": result}); n != want {
			t.Errorf("runs %s = %v, want %v", result, n, want)
		}
	}
	if log := h.log.String(); !strings.Contains(log, "attempt=3") || !strings.Contains(log, `line="attempt 2"`) {
		t.Errorf("the log lacks the attempts and their output:\n%s", log)
	}
}

// A command that always fails gives up after Attempts with an error that
// says why, and counts the VM as failed.
func TestAlwaysFails(t *testing.T) {
	h := mustNew(t, Config{Attempts: 3, Backoff: time.Second, Command: `
echo x >>$DIR/calls
echo "checking disk"
echo "disk on fire" >&2
exit 7`})
	done := h.start(context.Background(), testEvent(), testVM())
	h.advance(t, time.Second, 1)
	h.advance(t, 2*time.Second, 2)
	err := wait(t, done, 10*time.Second)
	if err == nil {
		t.Fatal("Actuate succeeded")
	}
	for _, want := range []string{"web-1", testEvent().ID, "3 attempts", "exit status 7", `"disk on fire"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if n := countLines(t, h.path("calls")); n != 3 {
		t.Errorf("%d calls, want 3", n)
	}
	if n := h.counter(t, "forewarn_exec_runs_total", map[string]string{"type": "Reboot", "result": "fail"}); n != 3 {
		t.Errorf("runs fail = %v, want 3", n)
	}
	if n := h.counter(t, "forewarn_exec_failed_vms_total", map[string]string{"type": "Reboot"}); n != 1 {
		t.Errorf("failed VMs = %v, want 1", n)
	}
	log := h.log.String()
	for _, want := range []string{`line="disk on fire"`, "stream=stderr", `line="checking disk"`, "exit_code=7", "attempt=3", "vm=web-1"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %s:\n%s", want, log)
		}
	}
}

// On timeout the whole process group dies, the background child too.
func TestTimeoutKillsProcessGroup(t *testing.T) {
	h := mustNew(t, Config{Attempts: 1, Timeout: 500 * time.Millisecond,
		Command: `sleep 60 & echo $! >$DIR/pid; wait`})
	began := time.Now()
	err := h.Actuate(context.Background(), testEvent(), testVM())
	if err == nil || !strings.Contains(err.Error(), "timed out after 500ms") {
		t.Fatalf("Actuate = %v, want a timeout", err)
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("Actuate took %v", took)
	}
	waitGone(t, readPID(t, h.path("pid")))
	if n := h.counter(t, "forewarn_exec_runs_total", map[string]string{"type": "Reboot", "result": "timeout"}); n != 1 {
		t.Errorf("runs timeout = %v, want 1", n)
	}
}

// Cancelling the context stops a running command at once, children too,
// and does not count the VM as failed.
func TestCancelStopsCommand(t *testing.T) {
	h := mustNew(t, Config{Command: `sleep 60 & echo $! >$DIR/fifo; wait`})
	if err := syscall.Mkfifo(h.path("fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := h.start(ctx, testEvent(), testVM())
	pid := readPID(t, h.path("fifo")) // blocks until the command writes
	began := time.Now()
	cancel()
	if err := wait(t, done, 5*time.Second); !errors.Is(err, context.Canceled) {
		t.Fatalf("Actuate = %v, want context.Canceled", err)
	}
	if took := time.Since(began); took > 2*time.Second {
		t.Errorf("stopping took %v", took)
	}
	waitGone(t, pid)
	if n := h.counter(t, "forewarn_exec_failed_vms_total", map[string]string{"type": "Reboot"}); n != 0 {
		t.Errorf("failed VMs = %v, want 0", n)
	}
}

// Cancelling the context during the backoff ends the wait.
func TestCancelDuringBackoff(t *testing.T) {
	h := mustNew(t, Config{Command: `echo x >>$DIR/calls; exit 1`})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := h.start(ctx, testEvent(), testVM())
	bctx, bcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer bcancel()
	if err := h.clock.BlockUntilContext(bctx, 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := wait(t, done, 5*time.Second); !errors.Is(err, context.Canceled) {
		t.Fatalf("Actuate = %v, want context.Canceled", err)
	}
	if n := countLines(t, h.path("calls")); n != 1 {
		t.Errorf("%d calls, want 1", n)
	}
}

// What the command leaves behind in its process group dies with it, and
// does not hold up the end of the attempt.
func TestLeftoversKilled(t *testing.T) {
	h := mustNew(t, Config{Attempts: 1, Command: `sleep 60 & echo $! >$DIR/pid; echo done`})
	began := time.Now()
	if err := h.Actuate(context.Background(), testEvent(), testVM()); err != nil {
		t.Fatalf("Actuate: %v", err)
	}
	if took := time.Since(began); took > drainWait {
		t.Errorf("Actuate took %v", took)
	}
	waitGone(t, readPID(t, h.path("pid")))
}

// A template that cannot expand for the actual VM fails the VM at once.
func TestExpandFailsAtOnce(t *testing.T) {
	h := mustNew(t, Config{Command: `echo {{index .Addresses 0}}`})
	vm := testVM()
	vm.Addresses = nil
	err := h.Actuate(context.Background(), testEvent(), vm)
	if err == nil || !strings.Contains(err.Error(), "expand command") {
		t.Fatalf("Actuate = %v, want an expansion error", err)
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	for name, cfg := range map[string]Config{
		"empty command":    {},
		"unclosed action":  {Command: "virsh reboot {{.VM"},
		"unknown field":    {Command: "virsh reboot {{.Machine}}"},
		"quote of a list":  {Command: "ping {{quote .Addresses}}"},
		"negative timeout": {Command: "true", Timeout: -time.Second},
		"negative tries":   {Command: "true", Attempts: -1},
		"negative backoff": {Command: "true", Backoff: -time.Second},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := New(cfg)
			if !errors.Is(err, forewarn.ErrInvalid) {
				t.Fatalf("New = %v, want ErrInvalid", err)
			}
			t.Log(err)
		})
	}
}

func TestNewDefaults(t *testing.T) {
	a, err := New(Config{Command: "true"})
	if err != nil {
		t.Fatal(err)
	}
	if a.cfg.Timeout != DefaultTimeout || a.cfg.Attempts != DefaultAttempts || a.cfg.Backoff != DefaultBackoff {
		t.Errorf("defaults: %+v", a.cfg)
	}
	if a.cfg.Clock == nil || a.cfg.Logger == nil {
		t.Error("no default clock or logger")
	}
}

// Two Actuators can share a registry.
func TestSharedRegistry(t *testing.T) {
	h := mustNew(t, Config{Command: "true"})
	if _, err := New(Config{Command: "true", Registerer: h.reg}); err != nil {
		t.Fatalf("second New: %v", err)
	}
}
