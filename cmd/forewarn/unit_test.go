package main

import (
	"os"
	"strings"
	"testing"
)

// TestSystemdUnitFlags checks that the ExecStart line of
// examples/forewarn.service is a serve command line serve accepts, with
// the data directory systemd creates (StateDirectory=forewarn).
// e2e/systemd_test.go has systemd-analyze verify the rest of the unit.
func TestSystemdUnitFlags(t *testing.T) {
	unit, err := os.ReadFile("../../examples/forewarn.service")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(unit), "\\\n", " ")
	var args []string
	for line := range strings.Lines(text) {
		if rest, ok := strings.CutPrefix(line, "ExecStart=/usr/local/bin/forewarn serve "); ok {
			args = strings.Fields(rest)
		}
	}
	if args == nil {
		t.Fatal("examples/forewarn.service: no ExecStart=/usr/local/bin/forewarn serve line")
	}
	o, err := parseServe(t, args...)
	if err != nil {
		t.Fatalf("serve %q: %v", args, err)
	}
	if o.dataDir != "/var/lib/forewarn" || !strings.Contains(text, "StateDirectory=forewarn\n") {
		t.Errorf("serve's data directory %q, want /var/lib/forewarn, StateDirectory=forewarn", o.dataDir)
	}
	if !o.assignAddress || o.metadataAddr != "169.254.169.254:80" {
		t.Errorf("serve %q: want the metadata endpoint on 169.254.169.254:80 with --assign-address", args)
	}
}
