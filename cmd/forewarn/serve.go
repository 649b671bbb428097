package main

import (
	"time"

	"github.com/spf13/cobra"
)

// serveOptions are the flags of forewarn serve.
type serveOptions struct {
	dataDir         string
	metadataAddr    string
	adminAddr       string
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
}

func newServeCommand() *cobra.Command {
	o := &serveOptions{
		enableIdle:      durationValue(24 * time.Hour),
		shutdownTimeout: durationValue(10 * time.Second),
	}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the metadata endpoint, the admin API and the control plane",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.applyDev(cmd)
			return o.run(cmd.Context(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.dataDir, "data-dir", "./forewarn-data", "directory of the store and the admin token")
	f.StringVar(&o.metadataAddr, "metadata-addr", "127.0.0.1:8169", "address of the metadata endpoint (production: 169.254.169.254:80)")
	f.StringVar(&o.adminAddr, "admin-addr", "127.0.0.1:8170", "address of the admin API")
	f.BoolVar(&o.dev, "dev", false, "development defaults: --time-scale 60, every scope enabled, no first-call delay")
	f.Float64Var(&o.timeScale, "time-scale", 1, "divide notice and simulated impact times by this factor")
	f.BoolVar(&o.assignAddress, "assign-address", false, "add the metadata address to the loopback device while serving (Linux, root)")
	f.Float64Var(&o.rateLimit, "rate-limit", 5, "metadata requests a second per VM, burst twice that; 0 turns it off")
	f.Var(&o.firstCallDelay, "first-call-delay", "hold the first request of a scope that enables Scheduled Events this long")
	f.Var(&o.enableIdle, "enable-idle", "a scope with no request for this long gets no notice")
	f.IntVar(&o.maxUserOps, "max-user-ops", 10, "user operations in flight at once per scope")
	f.IntVar(&o.historyKeep, "history-keep", 10000, "finished events the history keeps")
	f.StringVar(&o.adminTokenFile, "admin-token-file", "", "read the admin token from this file instead of <data-dir>/admin.token")
	f.StringVar(&o.location, "location", "local", "the location the instance metadata shows")
	f.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	f.StringVar(&o.logFormat, "log-format", "text", "text or json")
	f.Var(&o.shutdownTimeout, "shutdown-timeout", "how long in-flight requests may take to finish at shutdown")
	return cmd
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
