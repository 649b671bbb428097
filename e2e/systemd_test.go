package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// unitBinary is the path of forewarn in examples/forewarn.service.
const unitBinary = "/usr/local/bin/forewarn"

// TestSystemdUnit checks examples/forewarn.service with systemd-analyze
// verify, its ExecStart pointed at the binary under test (verify checks
// that it is executable). systemd-analyze exits 0 on an unknown directive
// or value, only warning: any line it prints about the unit fails the test.
// Skipped without systemd-analyze (Debian's systemd), unless
// FOREWARN_REQUIRE_SYSTEMD=1 (scripts/test.sh sets it).
func TestSystemdUnit(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		if os.Getenv("FOREWARN_REQUIRE_SYSTEMD") == "1" {
			t.Fatal("no systemd-analyze (install Debian's systemd: scripts/deps.sh) and FOREWARN_REQUIRE_SYSTEMD=1")
		}
		t.Skip("no systemd-analyze: install Debian's systemd (scripts/deps.sh) to check examples/forewarn.service")
	}
	unit, err := os.ReadFile("../examples/forewarn.service")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(unit), "ExecStart="+unitBinary+" serve") {
		t.Fatalf("examples/forewarn.service does not run %s serve", unitBinary)
	}
	path := filepath.Join(t.TempDir(), "forewarn.service")
	copied := strings.ReplaceAll(string(unit), "ExecStart="+unitBinary, "ExecStart="+binary)
	if err := os.WriteFile(path, []byte(copied), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	for line := range strings.Lines(string(out)) {
		if strings.Contains(line, "forewarn") {
			t.Errorf("systemd-analyze verify: %s", strings.TrimSpace(line))
		} else {
			t.Logf("systemd-analyze verify, about another unit: %s", strings.TrimSpace(line))
		}
	}
}
