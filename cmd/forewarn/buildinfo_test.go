package main

import (
	"encoding/json"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// readInfo returns a reader of bi, as debug.ReadBuildInfo is one.
func readInfo(bi *debug.BuildInfo) func() (*debug.BuildInfo, bool) {
	return func() (*debug.BuildInfo, bool) { return bi, bi != nil }
}

// checkout is the build info of "go build" in a git checkout with changes.
var checkout = &debug.BuildInfo{
	GoVersion: "go1.26.8",
	Main:      debug.Module{Path: "github.com/forewarn/forewarn", Version: "v1.2.4-0.20261126220000-0123456789ab+dirty"},
	Settings: []debug.BuildSetting{
		{Key: "-trimpath", Value: "true"},
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-11-26T22:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	},
}

func TestNewBuild(t *testing.T) {
	commit := time.Date(2026, 11, 26, 22, 0, 0, 0, time.UTC)
	built := time.Date(2026, 11, 26, 23, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		stamps stamps
		info   *debug.BuildInfo
		want   buildInfo
	}{{
		name: "go install from the module proxy: the module version, no checkout",
		info: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}},
		want: buildInfo{Version: "v1.2.3", GoVersion: "go1.26.8", Platform: "linux/arm64"},
	}, {
		name: "go build in a checkout: a pseudo-version and the git settings",
		info: checkout,
		want: buildInfo{Version: "v1.2.4-0.20261126220000-0123456789ab+dirty",
			Revision: "0123456789abcdef0123456789abcdef01234567", Modified: true,
			CommitTime: &commit, GoVersion: "go1.26.8", Platform: "linux/arm64"},
	}, {
		name:   "a release build: the stamps win",
		stamps: stamps{version: "v1.3.0", buildTime: "2026-11-26T23:30:00Z", revision: "fedcba", modified: "false"},
		info:   checkout,
		want: buildInfo{Version: "v1.3.0", Revision: "fedcba", CommitTime: &commit,
			BuildTime: &built, GoVersion: "go1.26.8", Platform: "linux/arm64"},
	}, {
		name: "go build outside a checkout",
		info: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
		want: buildInfo{Version: "(devel)", GoVersion: "go1.26.8", Platform: "linux/arm64"},
	}, {
		name:   "no build info, a build time that does not parse",
		stamps: stamps{buildTime: "yesterday"},
		want:   buildInfo{Version: "(devel)", GoVersion: build.GoVersion, Platform: "linux/arm64"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := newBuild(tc.stamps, "linux/arm64", readInfo(tc.info))
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(tc.want)
			if string(g) != string(w) {
				t.Errorf("newBuild =\n%s\nwant\n%s", g, w)
			}
		})
	}
}

func TestPrintBuild(t *testing.T) {
	b := newBuild(stamps{version: "v1.3.0", buildTime: "2026-11-26T23:30:00+01:00"}, "linux/amd64", readInfo(checkout))
	var out strings.Builder
	if err := printBuild(&out, b); err != nil {
		t.Fatal(err)
	}
	want := `forewarn v1.3.0
  revision:    0123456789abcdef0123456789abcdef01234567 (modified)
  commit time: 2026-11-26T22:00:00Z
  build time:  2026-11-26T22:30:00Z
  go:          go1.26.8 linux/amd64
`
	if out.String() != want {
		t.Errorf("printBuild =\n%s\nwant\n%s", out.String(), want)
	}
}

// TestVersionCommand runs "version" in-process: a test binary has no
// module version, so it says "(devel)", never the old "dev".
func TestVersionCommand(t *testing.T) {
	if out := mustRun(t, "version"); !strings.HasPrefix(out, "forewarn (devel)\n") || !strings.Contains(out, "  go:          go1.") {
		t.Errorf("version =\n%s", out)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(mustRun(t, "version", "-o", "json")), &got); err != nil {
		t.Fatal(err)
	}
	if got["version"] != "(devel)" || got["goVersion"] != build.GoVersion || got["platform"] != build.Platform {
		t.Errorf("version -o json = %v", got)
	}
}
