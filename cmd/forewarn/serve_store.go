package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/bolt"
	"github.com/forewarn/forewarn/etcd"
)

// etcdPasswordEnv is the environment variable of the etcd password, read
// when --etcd-password is not given.
const etcdPasswordEnv = "FOREWARN_ETCD_PASSWORD"

// storeOptions are the flags of serve that choose the store.
type storeOptions struct {
	url                string
	username, password string
	ca, cert, key      string
}

// usesEtcd reports whether --store names an etcd cluster.
func (s storeOptions) usesEtcd() bool { return s.url != "" }

// checkStore refuses store flags that make no sense, before anything starts.
func (o *serveOptions) checkStore() error {
	s := o.store
	if !s.usesEtcd() {
		if s.username != "" || s.password != "" || s.ca != "" || s.cert != "" || s.key != "" {
			return errors.New("the --etcd-* flags need --store etcd://...")
		}
		return nil
	}
	if _, err := etcd.ParseURL(s.url); err != nil {
		return fmt.Errorf("--store: %w", err)
	}
	switch {
	case (s.cert == "") != (s.key == ""):
		return errors.New("--etcd-cert and --etcd-key go together")
	case o.adminTokenFile == "":
		return errors.New("--store etcd://... needs --admin-token-file, the token every replica shares")
	}
	return nil
}

// storeName says where the state lives, for status: the bbolt file or the
// etcd URL, without a password it may hold.
func (o *serveOptions) storeName() string {
	if o.store.usesEtcd() {
		return etcd.Redact(o.store.url)
	}
	path := filepath.Join(o.dataDir, "forewarn.db")
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path
}

// openStore opens the store of --store: bbolt in the data directory, or
// etcd.
func (o *serveOptions) openStore(ctx context.Context, log *slog.Logger) (forewarn.Store, error) {
	if !o.store.usesEtcd() {
		s, err := bolt.Open(o.storeName(), bolt.Options{})
		if errors.Is(err, bolt.ErrInUse) {
			return nil, fmt.Errorf("data dir %s is in use by another forewarn serve (bbolt lock on %s)", o.dataDir, o.storeName())
		}
		if err != nil {
			return nil, fmt.Errorf("open store: %w", err)
		}
		return s, nil
	}
	cfg, err := o.store.etcdConfig()
	if err != nil {
		return nil, err
	}
	cfg.Logger = log
	s, err := etcd.Open(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	log.Info("store", "kind", "etcd", "endpoints", strings.Join(cfg.Endpoints, ","), "prefix", cfg.Prefix,
		"tls", cfg.TLS != nil, "user", cfg.Username)
	return s, nil
}

// etcdConfig reads the etcd flags into a Config: the URL, then the user,
// the password (flag, environment, or URL) and TLS.
func (s storeOptions) etcdConfig() (etcd.Config, error) {
	cfg, err := etcd.ParseURL(s.url)
	if err != nil {
		return etcd.Config{}, fmt.Errorf("--store: %w", err)
	}
	if s.username != "" {
		cfg.Username = s.username
	}
	if s.password != "" {
		cfg.Password = s.password
	} else if p := os.Getenv(etcdPasswordEnv); p != "" {
		cfg.Password = p
	}
	if cfg.Password != "" && cfg.Username == "" {
		return etcd.Config{}, errors.New("an etcd password needs --etcd-username")
	}
	if cfg.TLS, err = s.tlsConfig(); err != nil {
		return etcd.Config{}, err
	}
	return cfg, nil
}

// tlsConfig returns the TLS of --etcd-ca, --etcd-cert and --etcd-key, or
// nil if none is given.
func (s storeOptions) tlsConfig() (*tls.Config, error) {
	if s.ca == "" && s.cert == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if s.ca != "" {
		pem, err := os.ReadFile(s.ca)
		if err != nil {
			return nil, fmt.Errorf("--etcd-ca: %w", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--etcd-ca: %s holds no PEM certificate", s.ca)
		}
	}
	if s.cert != "" {
		pair, err := tls.LoadX509KeyPair(s.cert, s.key)
		if err != nil {
			return nil, fmt.Errorf("--etcd-cert, --etcd-key: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}
