package e2e

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestVersionStamped builds forewarn as scripts/release.sh does, with the
// version, build time and revision stamped by -ldflags, and checks that
// "forewarn version -o json" reports them. (TestMain's binary is built
// without stamps: race-enabled, for the other tests.)
func TestVersionStamped(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "forewarn")
	ldflags := "-X main.version=v9.8.7-e2e -X main.buildTime=2026-11-26T23:30:00Z" +
		" -X main.revision=0123456789abcdef -X main.modified=true"
	build := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", bin, "../cmd/forewarn")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version", "-o", "json").Output()
	if err != nil {
		t.Fatalf("forewarn version -o json: %v", err)
	}
	var got struct {
		Version   string `json:"version"`
		Revision  string `json:"revision"`
		Modified  bool   `json:"modified"`
		BuildTime string `json:"buildTime"`
		GoVersion string `json:"goVersion"`
		Platform  string `json:"platform"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("version -o json: %v\n%s", err, out)
	}
	if got.Version != "v9.8.7-e2e" || got.Revision != "0123456789abcdef" || !got.Modified ||
		got.BuildTime != "2026-11-26T23:30:00Z" || got.GoVersion == "" || got.Platform == "" {
		t.Errorf("version -o json =\n%s", out)
	}
}
