package main

import (
	"github.com/forewarn/forewarn/agent"
	"github.com/spf13/cobra"
)

// agentOptions are the flags of forewarn agent.
type agentOptions struct {
	config      string
	endpoint    string
	sourceAddr  string
	vmName      string
	stateFile   string
	metricsAddr string
	logLevel    string
	logFormat   string
}

func newAgentCommand() *cobra.Command {
	_, cmd := agentCommandWithOptions()
	return cmd
}

// agentCommandWithOptions returns the agent command and its options.
func agentCommandWithOptions() (*agentOptions, *cobra.Command) {
	o := &agentOptions{}
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Run the in-VM handler: hooks, approvals, webhook and metrics per scheduled event",
		Long: "Run the in-VM handler of Scheduled Events. It watches the metadata service, runs the\n" +
			"hooks of --config for each event that hits this VM (on_scheduled, on_started,\n" +
			"on_completed, on_cancelled), approves events by type, and serves metrics.\n" +
			"The flags override the config file's keys. The whole configuration is checked\n" +
			"at start: every problem is reported, one a line, and the agent does not start.\n" +
			"Without --config it runs with no hooks and approves nothing: it only logs events.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	f := cmd.Flags()
	f.StringVar(&o.config, "config", "", "YAML config file (see examples/agent.yaml)")
	f.StringVar(&o.endpoint, "endpoint", "", "metadata service URL (default: the config's, FOREWARN_ENDPOINT, or http://169.254.169.254)")
	f.StringVar(&o.sourceAddr, "source-addr", "", sourceAddrHelp)
	f.StringVar(&o.vmName, "vm-name", "", "this VM's name in Resources (default: from the instance metadata)")
	f.StringVar(&o.stateFile, "state-file", "", "state file (default "+agent.DefaultStateFile+")")
	f.StringVar(&o.metricsAddr, "metrics-addr", "", "serve /metrics and /healthz on this address, e.g. 127.0.0.1:9469")
	f.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	f.StringVar(&o.logFormat, "log-format", "text", "text or json")
	return o, cmd
}

// agentConfig reads --config (if given) and applies the flags over it. It
// checks nothing: agent.New checks the result whole, so that the file's
// problems and the flags' are reported together.
func (o *agentOptions) agentConfig() (*agent.Config, error) {
	cfg := &agent.Config{}
	if o.config != "" {
		var err error
		if cfg, err = agent.ReadConfig(o.config); err != nil {
			return nil, err
		}
	}
	for _, f := range []struct {
		key, flag, value string
		dst              *string
	}{
		{"endpoint", "--endpoint", o.endpoint, &cfg.Endpoint},
		{"source_addr", "--source-addr", o.sourceAddr, &cfg.SourceAddr},
		{"vm_name", "--vm-name", o.vmName, &cfg.VMName},
		{"state_file", "--state-file", o.stateFile, &cfg.StateFile},
		{"metrics_addr", "--metrics-addr", o.metricsAddr, &cfg.MetricsAddr},
	} {
		if f.value != "" {
			*f.dst = f.value
			cfg.SetBy(f.key, f.flag)
		}
	}
	return cfg, nil
}

// noConfigNotice is logged when the agent runs without --config.
const noConfigNotice = "no --config: running with no hooks and approving nothing; " +
	"the agent only logs the events of this VM (and counts them with --metrics-addr)"

// run builds the agent and runs it until the command's context ends.
func (o *agentOptions) run(cmd *cobra.Command) error {
	log, err := newLogger(cmd.ErrOrStderr(), o.logLevel, o.logFormat)
	if err != nil {
		return err
	}
	cfg, err := o.agentConfig()
	if err != nil {
		return err
	}
	a, err := agent.New(*cfg, log)
	if err != nil {
		return err
	}
	if o.config == "" {
		log.Warn(noConfigNotice)
	}
	return a.Run(cmd.Context())
}
