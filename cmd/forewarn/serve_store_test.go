package main

import (
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn/etcd"
)

// TestServeStoreChecks checks that serve refuses store flags that make no
// sense before it starts anything.
func TestServeStoreChecks(t *testing.T) {
	token := writeFile(t, "token", "secret\n")
	cases := []struct {
		name string
		args []string
		says string // "" for no error
	}{
		{"bbolt", nil, ""},
		{"etcd", []string{"--store", "etcd://127.0.0.1:2379/fw", "--admin-token-file", token}, ""},
		{"etcd flag without etcd", []string{"--etcd-username", "root"}, "need --store etcd://"},
		{"compaction without etcd", []string{"--etcd-compact-every", "0"}, "need --store etcd://"},
		{"no compaction", []string{"--store", "etcd://127.0.0.1:2379", "--admin-token-file", token, "--etcd-compact-every", "0"}, ""},
		{"compaction too often", []string{"--store", "etcd://127.0.0.1:2379", "--admin-token-file", token, "--etcd-compact-every", "1ms"}, "--etcd-compact-every 1ms: want 0 (off) or at least 1m0s"},
		{"compaction every minute", []string{"--store", "etcd://127.0.0.1:2379", "--admin-token-file", token, "--etcd-compact-every", "1m"}, ""},
		{"bad URL", []string{"--store", "http://127.0.0.1:2379", "--admin-token-file", token}, "--store"},
		{"no token file", []string{"--store", "etcd://127.0.0.1:2379"}, "needs --admin-token-file"},
		{"cert without key", []string{"--store", "etcd://127.0.0.1:2379", "--admin-token-file", token, "--etcd-cert", "c.pem"}, "go together"},
		{"exec", []string{"--store", "etcd://127.0.0.1:2379", "--admin-token-file", token,
			"--actuator", "exec", "--exec-command", "true"}, ""}, // only the leader actuates
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := parseServe(t, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			err = o.check()
			switch {
			case c.says == "" && err != nil:
				t.Fatalf("check: %v", err)
			case c.says != "" && (err == nil || !strings.Contains(err.Error(), c.says)):
				t.Fatalf("check = %v, want an error saying %q", err, c.says)
			}
		})
	}
}

// TestServeEtcdConfig checks how the etcd flags, the URL and the
// environment make the store's Config.
func TestServeEtcdConfig(t *testing.T) {
	t.Setenv(etcdPasswordEnv, "from-env")
	o, err := parseServe(t, "--store", "etcd://a:2379,b:2379/fw", "--etcd-username", "root")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := o.store.etcdConfig()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cfg.Endpoints, ",") != "a:2379,b:2379" || cfg.Prefix != "/fw" ||
		cfg.Username != "root" || cfg.Password != "from-env" || cfg.TLS != nil || cfg.CompactEvery != etcd.DefaultCompactEvery {
		t.Errorf("config = %+v", cfg)
	}

	o.store.password = "from-flag"
	if cfg, err = o.store.etcdConfig(); err != nil || cfg.Password != "from-flag" {
		t.Errorf("with --etcd-password: %q, %v", cfg.Password, err)
	}
	o.store.username = ""
	if _, err := o.store.etcdConfig(); err == nil || !strings.Contains(err.Error(), "needs --etcd-username") {
		t.Errorf("password without user: %v", err)
	}
	o.store.username, o.store.ca = "root", writeFile(t, "ca.pem", "not a certificate")
	if _, err := o.store.etcdConfig(); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("bad CA: %v", err)
	}
}

// TestServeEtcdCompactEvery: --etcd-compact-every sets the store's
// compaction interval, 0 turning it off.
func TestServeEtcdCompactEvery(t *testing.T) {
	for _, every := range []string{"0", "90s"} {
		o, err := parseServe(t, "--store", "etcd://a:2379", "--etcd-compact-every", every)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := o.store.etcdConfig()
		if want, _ := time.ParseDuration(every); err != nil || cfg.CompactEvery != want {
			t.Errorf("--etcd-compact-every %s: CompactEvery %v, %v", every, cfg.CompactEvery, err)
		}
	}
}

// TestStoreNameHidesPassword: status shows the store URL without the
// password it may hold.
func TestStoreNameHidesPassword(t *testing.T) {
	o := serveOptions{store: storeOptions{url: "etcd://fw:s3cret@h1:2379,h2:2379/x"}}
	if got, want := o.storeName(), "etcd://fw:xxxxx@h1:2379,h2:2379/x"; got != want {
		t.Errorf("storeName() = %q, want %q", got, want)
	}
}
