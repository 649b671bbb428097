package main

import (
	"runtime"
	"runtime/debug"
	"strconv"
	"time"
)

// The stamps of a release build, set by scripts/release.sh with -ldflags
// "-X main.version=v1.2.3 -X main.buildTime=2026-11-26T23:00:00Z
// -X main.revision=SHA -X main.modified=false". Empty otherwise: then they
// come from the build info Go records in every binary (go install
// ...@v1.2.3, go build in a checkout). The revision is stamped too because
// Go records none in a git worktree or with -buildvcs=false.
var (
	version   string
	buildTime string
	revision  string
	modified  string
)

// build is this binary's build, as "forewarn version" prints it and as a
// replica reports it.
var build = newBuild(stamps{version, buildTime, revision, modified},
	runtime.GOOS+"/"+runtime.GOARCH, debug.ReadBuildInfo)

// stamps are the -X values of a release build, "" where not stamped.
type stamps struct {
	version, buildTime, revision, modified string
}

// develVersion is the version of a binary built without a module version:
// go build outside a version-control checkout, go run, a test binary. It is
// what Go itself records for such a build.
const develVersion = "(devel)"

// buildInfo says what a binary was built from, and when.
type buildInfo struct {
	// Version is the stamped version, else the module's (a tag, or a
	// pseudo-version in a checkout), else "(devel)".
	Version string `json:"version"`
	// Revision is the version-control revision, "" when not recorded (a
	// module installed from the proxy has no checkout to read it from).
	Revision string `json:"revision,omitempty"`
	// Modified is whether the checkout had uncommitted changes.
	Modified bool `json:"modified,omitempty"`
	// CommitTime is the revision's commit time.
	CommitTime *time.Time `json:"commitTime,omitempty"`
	// BuildTime is the stamped time of a release build.
	BuildTime *time.Time `json:"buildTime,omitempty"`
	// GoVersion is the Go toolchain that built the binary.
	GoVersion string `json:"goVersion"`
	// Platform is GOOS/GOARCH.
	Platform string `json:"platform"`
}

// newBuild combines the stamps with the build info that read returns;
// a stamp wins over the build info.
func newBuild(st stamps, platform string, read func() (*debug.BuildInfo, bool)) buildInfo {
	b := buildInfo{GoVersion: runtime.Version(), Platform: platform}
	if bi, ok := read(); ok {
		b.fromBuildInfo(bi)
	}
	if st.version != "" {
		b.Version = st.version
	}
	if b.Version == "" {
		b.Version = develVersion
	}
	b.BuildTime = parseTime(st.buildTime)
	if st.revision != "" {
		b.Revision = st.revision
		b.Modified, _ = strconv.ParseBool(st.modified)
	}
	return b
}

// fromBuildInfo sets the module version, the Go version and the
// version-control settings that bi records.
func (b *buildInfo) fromBuildInfo(bi *debug.BuildInfo) {
	b.Version = bi.Main.Version
	if bi.GoVersion != "" {
		b.GoVersion = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.CommitTime = parseTime(s.Value)
		case "vcs.modified":
			b.Modified, _ = strconv.ParseBool(s.Value)
		}
	}
}

// parseTime parses an RFC 3339 time, nil for "" or a time that does not
// parse (a stamp is not worth failing a command over).
func parseTime(s string) *time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return nil
	}
	t = t.UTC()
	return &t
}
