package main

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
	"github.com/forewarn/forewarn/etcd"
	"github.com/forewarn/forewarn/execact"
	"github.com/forewarn/forewarn/imds"
	"github.com/spf13/cobra"
)

// serveOptions are the flags of forewarn serve.
type serveOptions struct {
	config          string
	dataDir         string
	store           storeOptions
	metadataAddr    string
	adminAddr       string
	adminTLSCert    string
	adminTLSKey     string
	adminInsecure   bool
	dashOrigins     []string
	pprofAddr       string
	replicaID       string
	dev             bool
	timeScale       float64
	assignAddress   bool
	rateLimit       float64
	firstCallDelay  durationValue
	enableIdle      durationValue
	maxUserOps      int
	historyKeep     int
	adminTokenFile  string
	location        string
	logLevel        string
	logFormat       string
	shutdownTimeout durationValue
	adminTimeout    durationValue
	fleet           string
	actuator        string
	exec            execOptions
	// listening, if set, is told the address of each listener ("metadata",
	// "admin") once serve accepts connections on it: how a command that
	// embeds serve (drill run --serve) finds a port the system chose.
	listening func(name string, addr net.Addr)
	// fromEnv are the flags set from the environment, with their
	// variables (applyServeEnv), for the errors of check.
	fromEnv map[string]string
}

// execOptions are the flags of the exec actuator.
type execOptions struct {
	command  string
	timeout  durationValue
	attempts int
	backoff  durationValue
}

func newServeCommand() *cobra.Command { return newServeOptions().command() }

// command returns the serve command bound to o.
func (o *serveOptions) command() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the metadata endpoint, the admin API and the control plane",
		Long: `Run the metadata endpoint, the admin API and the control plane.

Every flag can also be given as an environment variable: FOREWARN_ and the
flag's name upper-cased, '-' as '_' (FOREWARN_ADMIN_ADDR for --admin-addr,
FOREWARN_DEV=true for --dev); an empty one counts as unset. A flag given on
the command line wins over the environment, which wins over the --config
file, which wins over the default.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.prepare(cmd); err != nil {
				return err
			}
			return o.run(cmd.Context(), cmd.ErrOrStderr())
		},
	}
	o.addFlags(cmd)
	return cmd
}

// newServeOptions returns the options with the defaults that are not
// zero values of flags.
func newServeOptions() *serveOptions {
	return &serveOptions{
		enableIdle:      durationValue(forewarn.DefaultEnableIdle),
		shutdownTimeout: durationValue(10 * time.Second),
		adminTimeout:    durationValue(admin.DefaultRequestTimeout),
		store:           storeOptions{compactEvery: durationValue(etcd.DefaultCompactEvery)},
		exec: execOptions{
			timeout:  durationValue(execact.DefaultTimeout),
			attempts: execact.DefaultAttempts,
			backoff:  durationValue(execact.DefaultBackoff),
		},
	}
}

// addFlags defines the flags of serve; every one but --config can also be
// a key of the --config file, and every one a FOREWARN_* environment
// variable (applyServeEnv).
func (o *serveOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.config, "config", "", "read serve's flags from this YAML file, keyed by flag name (flags given here and FOREWARN_* variables win)")
	f.StringVar(&o.dataDir, "data-dir", "./forewarn-data", "directory of the store and the admin token")
	f.StringVar(&o.store.url, "store", "", "the store: empty for bbolt in --data-dir, or etcd://host:port[,host:port...][/prefix]")
	f.BoolVar(&o.store.mustExist, "store-must-exist", false, "refuse to start on a store that holds no fleet (a replica joining one: a wrong prefix is an error, not a new fleet)")
	f.StringVar(&o.store.username, "etcd-username", "", "with an etcd store: the user to authenticate as")
	f.StringVar(&o.store.password, "etcd-password", "", "with an etcd store: the password of --etcd-username (better: $"+etcdPasswordEnv+")")
	f.StringVar(&o.store.ca, "etcd-ca", "", "with an etcd store: connect with TLS, trusting the CA certificates in this PEM file")
	f.StringVar(&o.store.cert, "etcd-cert", "", "with an etcd store: connect with TLS, with this client certificate (PEM; needs --etcd-key)")
	f.StringVar(&o.store.key, "etcd-key", "", "with an etcd store: the private key of --etcd-cert (PEM)")
	f.Var(&o.store.compactEvery, "etcd-compact-every",
		"with an etcd store: how often the leader compacts etcd's key history, keeping the last interval's; 0 turns it off (for an etcd that compacts itself, with --auto-compaction-retention)")
	f.StringVar(&o.metadataAddr, "metadata-addr", defaultMetadataAddr, "address of the metadata endpoint (production: 169.254.169.254:80)")
	f.StringVar(&o.adminAddr, "admin-addr", "127.0.0.1:8170", "address of the admin API (loopback, unless with TLS or --admin-insecure)")
	f.StringVar(&o.adminTLSCert, "admin-tls-cert", "", "serve the admin API over TLS with this certificate (PEM; needs --admin-tls-key)")
	f.StringVar(&o.adminTLSKey, "admin-tls-key", "", "the private key of --admin-tls-cert (PEM)")
	f.BoolVar(&o.adminInsecure, "admin-insecure", false, "allow the admin API on a non-loopback address without TLS")
	f.StringArrayVar(&o.dashOrigins, "dashboard-origin", nil,
		"an origin (https://ops.example.com) the dashboard is reached at through a proxy that rewrites the Host header; its changes are accepted (repeatable)")
	f.StringVar(&o.pprofAddr, "pprof-addr", "", "serve Go's profiles (/debug/pprof/) on this address, e.g. 127.0.0.1:6060; off if empty")
	f.StringVar(&o.replicaID, "replica-id", "", "this replica's name in forewarn status and the leader election (default host-pid)")
	f.BoolVar(&o.dev, "dev", false, "development defaults: --time-scale 60, every scope enabled, no first-call delay")
	f.Float64Var(&o.timeScale, "time-scale", 1, "divide notice and simulated impact times by this factor")
	f.BoolVar(&o.assignAddress, "assign-address", false, "add the metadata address to the loopback device while serving (Linux, root)")
	f.Float64Var(&o.rateLimit, "rate-limit", imds.DefaultRateLimit, "metadata requests a second per VM, burst twice that; 0 turns it off")
	f.Var(&o.firstCallDelay, "first-call-delay", "hold the first request of a scope that enables Scheduled Events this long")
	f.Var(&o.enableIdle, "enable-idle", "a scope with no request for this long gets no notice")
	f.IntVar(&o.maxUserOps, "max-user-ops", forewarn.DefaultMaxUserOps, "user operations in flight at once per scope")
	f.IntVar(&o.historyKeep, "history-keep", forewarn.DefaultHistoryKeep, "finished events the history keeps")
	f.StringVar(&o.adminTokenFile, "admin-token-file", "", "read the admin token from this file instead of <data-dir>/admin.token")
	f.StringVar(&o.location, "location", "local", "the location the instance metadata shows")
	f.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	f.StringVar(&o.logFormat, "log-format", "text", "text or json")
	f.Var(&o.shutdownTimeout, "shutdown-timeout", "how long in-flight requests may take to finish at shutdown")
	f.Var(&o.adminTimeout, "admin-request-timeout", "how long an admin API request may wait for the store before it answers 503 unavailable")
	f.StringVar(&o.fleet, "fleet", "", "apply this fleet file (YAML) at start, without pruning; a bad file stops the start")
	f.StringVar(&o.actuator, "actuator", actuatorSimulate, "what starting an event does: simulate, or exec (run --exec-command per VM)")
	f.StringVar(&o.exec.command, "exec-command", "", "with --actuator exec: the shell command run once per VM of a started event (must be idempotent)")
	f.Var(&o.exec.timeout, "exec-timeout", "with --actuator exec: how long one run of the command may take")
	f.IntVar(&o.exec.attempts, "exec-attempts", execact.DefaultAttempts, "with --actuator exec: runs of the command before a VM is reported failed")
	f.Var(&o.exec.backoff, "exec-backoff", "with --actuator exec: the wait before the first retry, doubled at each retry")
}

// prepare reads the FOREWARN_* environment variables, then the --config
// file, into the flags not given on the command line, then sets the
// development defaults.
func (o *serveOptions) prepare(cmd *cobra.Command) error {
	fromEnv, err := applyServeEnv(cmd, os.LookupEnv)
	if err != nil {
		return err
	}
	o.fromEnv = fromEnv
	if o.config != "" {
		if err := loadServeConfig(o.config, cmd); err != nil {
			return err
		}
	}
	o.store.compactGiven = cmd.Flags().Changed("etcd-compact-every")
	o.applyDev(cmd)
	return nil
}

// applyDev sets the development defaults of the flags not given explicitly.
func (o *serveOptions) applyDev(cmd *cobra.Command) {
	if !o.dev {
		return
	}
	if !cmd.Flags().Changed("time-scale") {
		o.timeScale = 60
	}
}

// newLogger returns serve's logger, writing to w at --log-level in
// --log-format.
func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %q is not debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format: %q is not text or json", format)
}
