package main

import (
	"strings"
	"testing"
	"time"
)

// TestServeEnv checks that FOREWARN_* variables set serve's flags, with the
// precedence the README gives: flag > environment > --config file >
// default, and that --dev's defaults do not override them.
func TestServeEnv(t *testing.T) {
	path := writeFile(t, "serve.yaml", "location: from-file\nmax-user-ops: 3\nhistory-keep: 7\ndev: true\n")
	t.Setenv("FOREWARN_CONFIG", path)
	t.Setenv("FOREWARN_LOCATION", "from-env")
	t.Setenv("FOREWARN_MAX_USER_OPS", "4")
	t.Setenv("FOREWARN_ADMIN_ADDR", "0.0.0.0:9170")
	t.Setenv("FOREWARN_ADMIN_INSECURE", "true")
	t.Setenv("FOREWARN_SHUTDOWN_TIMEOUT", "3s")
	t.Setenv("FOREWARN_TIME_SCALE", "5")
	t.Setenv("FOREWARN_RATE_LIMIT", "") // empty: unset
	o, err := parseServe(t, "--max-user-ops", "6")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"config (env)", o.config, path},
		{"location (env over file)", o.location, "from-env"},
		{"max-user-ops (flag over env and file)", o.maxUserOps, 6},
		{"history-keep (file over default)", o.historyKeep, 7},
		{"dev (file)", o.dev, true},
		{"time-scale (env over --dev's default)", o.timeScale, 5.0},
		{"admin-addr (env)", o.adminAddr, "0.0.0.0:9170"},
		{"admin-insecure (env)", o.adminInsecure, true},
		{"shutdown-timeout (env)", o.shutdownTimeout, durationValue(3 * time.Second)},
		{"rate-limit (empty env: default)", o.rateLimit, 5.0},
		{"data-dir (default)", o.dataDir, "./forewarn-data"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
}

// TestServeEnvErrors checks that a value a flag refuses stops serve with the
// variable's name, the value and the flag.
func TestServeEnvErrors(t *testing.T) {
	for _, c := range []struct{ name, value, want string }{
		{"FOREWARN_TIME_SCALE", "fast", `$FOREWARN_TIME_SCALE: invalid value "fast" for --time-scale`},
		{"FOREWARN_DEV", "maybe", `$FOREWARN_DEV: invalid value "maybe" for --dev`},
		{"FOREWARN_SHUTDOWN_TIMEOUT", "10x", `$FOREWARN_SHUTDOWN_TIMEOUT: invalid value "10x" for --shutdown-timeout`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(c.name, c.value)
			if _, err := parseServe(t); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s=%s: error %v, want %q", c.name, c.value, err, c.want)
			}
			// The command line wins: a bad variable of a given flag is not read.
			flag := "--" + strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(c.name, "FOREWARN_"), "_", "-"))
			value := map[string]string{"--time-scale": "2", "--dev": "true", "--shutdown-timeout": "1s"}[flag]
			if _, err := parseServe(t, flag+"="+value); err != nil {
				t.Errorf("%s=%s with %s=%s: %v", c.name, c.value, flag, value, err)
			}
		})
	}
}

// TestServeEnvName checks the variable names, and that those of the admin
// commands (FOREWARN_SERVER, FOREWARN_TOKEN, FOREWARN_CA_FILE) name no flag
// of serve, so that setting them for the CLI changes nothing in serve.
func TestServeEnvName(t *testing.T) {
	if got := serveEnvName("admin-addr"); got != "FOREWARN_ADMIN_ADDR" {
		t.Errorf("serveEnvName(admin-addr) = %s", got)
	}
	if got := serveEnvName("etcd-password"); got != etcdPasswordEnv {
		t.Errorf("serveEnvName(etcd-password) = %s, want %s, which serve already reads", got, etcdPasswordEnv)
	}
	cmd := newServeCommand()
	for _, env := range []string{serverEnv, tokenEnv, caFileEnv} {
		name := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(env, serveEnvPrefix), "_", "-"))
		if cmd.Flags().Lookup(name) != nil {
			t.Errorf("$%s is the admin commands' and serve's --%s", env, name)
		}
	}
}

// TestServeEnvCheckErrors checks that a value a flag takes but serve's
// checks refuse names the variable the user gave, not only the flag.
func TestServeEnvCheckErrors(t *testing.T) {
	t.Setenv("FOREWARN_TIME_SCALE", "-5")
	o, err := parseServe(t)
	if err != nil {
		t.Fatal(err)
	}
	err = o.namingEnv(o.check())
	if err == nil || !strings.Contains(err.Error(), "--time-scale") || !strings.Contains(err.Error(), "$FOREWARN_TIME_SCALE") {
		t.Errorf("check with FOREWARN_TIME_SCALE=-5: %v, want it to name --time-scale and $FOREWARN_TIME_SCALE", err)
	}
	// Given as a flag, the variable is not named.
	o, err = parseServe(t, "--time-scale=-5")
	if err != nil {
		t.Fatal(err)
	}
	if err := o.namingEnv(o.check()); err == nil || strings.Contains(err.Error(), "$FOREWARN") {
		t.Errorf("check with --time-scale=-5: %v, want an error naming no variable", err)
	}
}
