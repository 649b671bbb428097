package main

import (
	"net"
	"os"
	"path/filepath"
	"testing"
)

// TestAdminToken checks where the admin commands find their token.
func TestAdminToken(t *testing.T) {
	srv := startServer(t)
	srv.setEnv(t)
	t.Setenv(tokenEnv, "")

	empty := t.TempDir()
	mustFail(t, []string{"scope", "list", "--data-dir", empty},
		"no admin token", tokenEnv, filepath.Join(empty, tokenFile))
	mustFail(t, []string{"vm", "list", "--token-file", filepath.Join(empty, "nope")},
		"no admin token", filepath.Join(empty, "nope"))

	mustRun(t, "scope", "list", "--data-dir", srv.dataDir)
	mustRun(t, "vm", "list", "--token-file", filepath.Join(srv.dataDir, tokenFile))

	t.Setenv(tokenEnv, "wrong")
	mustFail(t, []string{"maintenance", "list", "--data-dir", srv.dataDir}, "$"+tokenEnv) // the environment wins, and is refused
	t.Setenv(tokenEnv, "")
	wrong := filepath.Join(empty, "wrong.token")
	if err := os.WriteFile(wrong, []byte("wrong\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mustFail(t, []string{"maintenance", "list", "--token-file", wrong}, wrong)
}

// TestBadInput checks that bad flags, arguments and names fail with one
// clear line.
func TestBadInput(t *testing.T) {
	srv := startServer(t)
	srv.setEnv(t)

	mustFail(t, []string{"vm", "show", "nope"}, `"nope" not found`)
	mustFail(t, []string{"vm", "restart", "nope"}, `"nope" not found`)
	mustFail(t, []string{"maintenance", "approve", "no-such-event"}, "not found")
	mustFail(t, []string{"scope", "list", "-o", "yaml"}, `"yaml" is not table or json`)
	mustFail(t, []string{"events", "-o", "xml"}, `"xml" is not table or json`)
	mustFail(t, []string{"scope", "create", "x", "--terminate-notice", "5x"}, "--terminate-notice", "5x")
	mustFail(t, []string{"scope", "create", "x", "--terminate-notice", "7d"}, "--terminate-notice must be from 5m to 15m, not 7d") // days parse
	mustRun(t, "scope", "create", "ss", "--kind", "scale-set", "--terminate-notice", "10m")
	mustFail(t, []string{"scope", "create", "x", "--kind", "rack"}, `"rack"`)
	mustFail(t, []string{"scope", "create", "x", "--update-domains", "0"}, "--update-domains must be from 1 to 20, not 0")
	mustFail(t, []string{"scope", "create", "bad/name"}, "bad/name")
	mustFail(t, []string{"scope", "show"}, "missing NAME")
	mustFail(t, []string{"vm", "restart", "a", "b"}, "takes one NAME")
	mustFail(t, []string{"vm", "reboot", "a"}, `unknown command "reboot"`)
	mustFail(t, []string{"maintenance", "history", "--limit", "0"}, "--limit must be from 1 to 10000, not 0")
	mustFail(t, []string{"events", "approve"}, "--all")
	mustFail(t, []string{"events", "approve", "x", "--all"}, "not both")
	mustFail(t, []string{"events", "approve", "no-such-event"}, "400", `"no-such-event"`)
	mustFail(t, []string{"events", "--api-version", "2099-01-01"}, "400", "api-version")
	mustFail(t, []string{"events", "--endpoint", "ftp://x"}, "invalid metadata endpoint")
}

// TestServerDown checks the hint when nothing answers at the admin address.
func TestServerDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	t.Setenv(tokenEnv, "token")
	mustFail(t, []string{"scope", "list", "--server", "http://" + addr}, addr, "is forewarn serve running", serverEnv)
	t.Setenv(serverEnv, addr)
	mustFail(t, []string{"vm", "list"}, addr, "is forewarn serve running")
}

// TestBadInputMaintenance checks the errors of the commands of platform
// maintenance.
func TestBadInputMaintenance(t *testing.T) {
	srv := startServer(t)
	srv.setEnv(t)

	mustFail(t, []string{"maintenance", "start", "--all"}, "missing --type")
	mustFail(t, []string{"maintenance", "start", "--type", "Preempt", "--all"}, `--type: "Preempt" is not Freeze, Reboot or Redeploy`)
	mustFail(t, []string{"maintenance", "start", "--type", "Reboot"}, "no scope")
	mustFail(t, []string{"maintenance", "start", "--type", "Reboot", "--all", "--scope", "default"}, "not both")
	mustFail(t, []string{"maintenance", "start", "--type", "Reboot", "--all", "--parallel-scopes", "0"}, "--parallel-scopes must be at least 1")
	mustFail(t, []string{"maintenance", "start", "--type", "Reboot", "--scope", "nope"}, `"nope" not found`)
	mustFail(t, []string{"maintenance", "start", "--type", "Reboot", "--all", "--notice", "later"}, "--notice", "later")
	mustFail(t, []string{"maintenance", "start", "--type", "Freeze", "--all", "--duration", "500ms"}, "at least 1s")
	mustFail(t, []string{"maintenance", "campaign", "show"}, "missing ID")
	mustFail(t, []string{"maintenance", "campaign", "stop", "x"}, `unknown command "stop"`)
	mustFail(t, []string{"maintenance", "campaign", "pause", "no-such-campaign"}, "not found")
	mustFail(t, []string{"maintenance", "campaigns", "extra"}, "unknown command")
	mustFail(t, []string{"maintenance", "resolve", "no-such-event", "--retry"}, "not found")
	mustFail(t, []string{"chaos", "delete"}, "missing ID")
	mustFail(t, []string{"chaos", "list", "-o", "yaml"}, `"yaml" is not table or json`)
}
