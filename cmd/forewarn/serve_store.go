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
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/bolt"
	"github.com/forewarn/forewarn/etcd"
	"github.com/forewarn/forewarn/fabric"
)

// etcdPasswordEnv is the environment variable of the etcd password, read
// when --etcd-password is not given.
const etcdPasswordEnv = "FOREWARN_ETCD_PASSWORD"

// storeOptions are the flags of serve that choose the store.
type storeOptions struct {
	url                string
	username, password string
	ca, cert, key      string
	// mustExist refuses a store that holds no fleet (--store-must-exist).
	mustExist bool
	// compactEvery is how often the leader compacts etcd's key history
	// (--etcd-compact-every); compactGiven says the flag was set.
	compactEvery durationValue
	compactGiven bool
}

// usesEtcd reports whether --store names an etcd cluster.
func (s storeOptions) usesEtcd() bool { return s.url != "" }

// checkStore refuses store flags that make no sense, before anything starts.
func (o *serveOptions) checkStore() error {
	s := o.store
	if !s.usesEtcd() {
		if s.username != "" || s.password != "" || s.ca != "" || s.cert != "" || s.key != "" || s.compactGiven {
			return errors.New("the --etcd-* flags need --store etcd://HOST:PORT[/PREFIX]")
		}
		return nil
	}
	if _, err := etcd.ParseURL(s.url); err != nil {
		return fmt.Errorf("--store: %w", err)
	}
	switch {
	case (s.cert == "") != (s.key == ""):
		return errors.New("--etcd-cert and --etcd-key go together")
	case s.compactEvery != 0 && time.Duration(s.compactEvery) < etcd.MinCompactEvery:
		return fmt.Errorf("--etcd-compact-every %v: want 0 (off) or at least %v: each compaction is of the whole etcd cluster, and a watch or transaction further behind than one interval reads again",
			time.Duration(s.compactEvery), etcd.MinCompactEvery)
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

// openStore opens the store of --store (bbolt in the data directory, or
// etcd) and checks that it holds a fleet, if it should.
func (o *serveOptions) openStore(ctx context.Context, log *slog.Logger) (forewarn.Store, error) {
	_, err := os.Stat(o.storeName())
	created := !o.store.usesEtcd() && errors.Is(err, os.ErrNotExist)
	s, err := o.openStoreOf(ctx, log)
	if err != nil {
		return nil, err
	}
	if err := o.checkFleet(ctx, s, created, log); err != nil {
		// A refused start leaves no file, and no etcd key, behind.
		if es, ok := s.(*etcd.Store); ok {
			if werr := es.Withdraw(ctx); werr != nil {
				log.Warn("leave the store as it was", "store", o.storeName(), "err", werr)
			}
		}
		s.Close()
		if created {
			os.Remove(o.storeName())
		}
		return nil, err
	}
	return s, nil
}

// checkFleet refuses a store that holds no fleet under --store-must-exist,
// and else warns of one this start did not create: a typo in an etcd
// prefix would otherwise start a new, empty fleet without a word.
func (o *serveOptions) checkFleet(ctx context.Context, s forewarn.Store, created bool, log *slog.Logger) error {
	has, err := fabric.HoldsFleet(ctx, s)
	switch {
	case err != nil:
		return fmt.Errorf("read store %s: %w", o.storeName(), err)
	case has:
		return nil
	case o.store.mustExist:
		return fmt.Errorf("store %s holds no fleet, and --store-must-exist is given: check the store's URL and its prefix", o.storeName())
	case !created:
		log.Warn("the store holds no fleet: starting a new one there; a replica meant to join a fleet should check the store's URL and prefix (--store-must-exist refuses to start on an empty store)",
			"store", o.storeName())
	}
	return nil
}

// openStoreOf opens the store of --store.
func (o *serveOptions) openStoreOf(ctx context.Context, log *slog.Logger) (forewarn.Store, error) {
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
		"tls", cfg.TLS != nil, "user", cfg.Username, "compact_every", cfg.CompactEvery)
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
	cfg.CompactEvery = time.Duration(s.compactEvery)
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
