package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// netnsCannotRun is the exit status by which scripts/netns-e2e.sh says that
// it cannot run on this machine (the automake convention for a skip).
const netnsCannotRun = 77

// TestNetnsVMs runs scripts/netns-e2e.sh against the test binary: real VMs
// in network namespaces asking forewarn serve on 169.254.169.254:80 (the
// script says what it checks). It needs root and `ip netns`; without them
// it is skipped, or fails if FOREWARN_REQUIRE_NETNS=1 (CI sets it).
func TestNetnsVMs(t *testing.T) {
	if os.Geteuid() != 0 {
		netnsUnavailable(t, "needs root (network namespaces, veth pairs, 169.254.169.254:80)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		netnsUnavailable(t, "needs the ip command (iproute2)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "../scripts/netns-e2e.sh", binary)
	// SIGTERM, not SIGKILL, at the deadline: the script's trap then
	// removes its namespaces and stops serve.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	t.Log("scripts/netns-e2e.sh:\n" + out.String())
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && exit.ExitCode() == netnsCannotRun:
		_, why, _ := strings.Cut(strings.TrimSpace(out.String()), "cannot run here: ")
		netnsUnavailable(t, why)
	case ctx.Err() != nil:
		t.Fatalf("scripts/netns-e2e.sh did not finish within 3 minutes: %v", err)
	default:
		t.Fatalf("scripts/netns-e2e.sh: %v (its FAIL lines are above)", err)
	}
}

// netnsUnavailable skips the test, or fails it if FOREWARN_REQUIRE_NETNS=1.
func netnsUnavailable(t *testing.T, why string) {
	t.Helper()
	msg := "network namespace test cannot run here: " + why
	if os.Getenv("FOREWARN_REQUIRE_NETNS") == "1" {
		t.Fatal(msg + " (FOREWARN_REQUIRE_NETNS=1)")
	}
	t.Skip(msg)
}
