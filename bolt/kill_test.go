//go:build unix

package bolt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// killChildEnv names the store file the child process writes before it
// kills itself.
const killChildEnv = "FOREWARN_BOLT_KILL_CHILD"

// TestUpdateSurvivesKill runs itself in a child process that commits an
// Update and then dies of SIGKILL at once; the parent reopens the file and
// finds the Update.
func TestUpdateSurvivesKill(t *testing.T) {
	if path := os.Getenv(killChildEnv); path != "" {
		commitAndDie(path)
		return
	}
	path := filepath.Join(t.TempDir(), "forewarn.db")
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestUpdateSurvivesKill$")
	cmd.Env = append(os.Environ(), killChildEnv+"="+path)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die of SIGKILL: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "committed") {
		t.Fatalf("child did not commit:\n%s", out)
	}
	assertFixture(t, mustOpenPath(t, path, Options{}))
}

// commitAndDie is the child: it commits the fixture and kills itself
// without closing the store.
func commitAndDie(path string) {
	s, err := Open(path, Options{})
	if err == nil {
		err = s.Update(context.Background(), newFixture().write)
	}
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	fmt.Println("committed")
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}
