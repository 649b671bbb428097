package agent

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jonboulle/clockwork"
	"gopkg.in/yaml.v3"

	"github.com/forewarn/forewarn/internal/yamlmsg"
)

// Defaults of a Config.
const (
	// DefaultStateFile is where the agent records what it has done.
	DefaultStateFile = "/var/lib/forewarn-agent/state.json"
	// DefaultHookTimeout bounds a hook without a timeout of its own.
	DefaultHookTimeout = 5 * time.Minute
	// DefaultLeaderFallback is how long before NotBefore the VMs that are
	// not the leader approve a still Scheduled event.
	DefaultLeaderFallback = 30 * time.Second
	// DefaultWebhookTimeout bounds one webhook request.
	DefaultWebhookTimeout = 10 * time.Second
	// DefaultWebhookRetries is how many times a failed webhook is retried.
	DefaultWebhookRetries = 3
)

// EventType keys Hooks and Approval: an event type of the wire ("Reboot")
// or DefaultType.
type EventType string

// DefaultType is the key whose hooks and policy apply to the event types
// that have none of their own.
const DefaultType EventType = "default"

// eventTypes are the keys Hooks and Approval accept.
var eventTypes = []EventType{"Freeze", "Reboot", "Redeploy", "Preempt", "Terminate", DefaultType}

// Policy says when the agent approves the events of a type.
type Policy string

// The approval policies.
const (
	// Never leaves the event to start at its NotBefore (or when someone
	// else approves it).
	Never Policy = "never"
	// AfterHook approves once on_scheduled has succeeded.
	AfterHook Policy = "after-hook"
	// Immediately approves on first sight, before on_scheduled runs.
	Immediately Policy = "immediately"
)

// Config is the agent's configuration, read from YAML by LoadConfig.
type Config struct {
	// Endpoint is the metadata service's base URL; "" lets the client pick
	// (FOREWARN_ENDPOINT, else http://169.254.169.254).
	Endpoint string `yaml:"endpoint"`
	// SourceAddr, if set, is the local IP address the metadata requests
	// leave from: the service knows the calling VM by it, so that several
	// agents on one host can act as several VMs (tests, drills).
	SourceAddr string `yaml:"source_addr"`
	// APIVersion is the Scheduled Events api-version; "" is the client's
	// default.
	APIVersion string `yaml:"api_version"`
	// VMName is this VM's name in Resources; "" asks the instance metadata,
	// falling back to the host name.
	VMName string `yaml:"vm_name"`
	// StateFile records the hooks run and approvals made; default
	// DefaultStateFile.
	StateFile string `yaml:"state_file"`
	// ScopeEvents makes the agent run hooks for the events of its scope
	// that do not hit its VM too (it never approves those).
	ScopeEvents bool `yaml:"scope_events"`
	// Hooks are the commands per event type.
	Hooks map[EventType]Hooks `yaml:"hooks"`
	// Approval is the policy per event type; default Never.
	Approval map[EventType]Policy `yaml:"approval"`
	// LeaderOnly lets only the VM named first in Resources approve, with
	// LeaderFallback.
	LeaderOnly bool `yaml:"leader_only"`
	// LeaderFallback: a VM that is not the leader approves an event still
	// Scheduled this long before its NotBefore; default
	// DefaultLeaderFallback.
	LeaderFallback Duration `yaml:"leader_fallback"`
	// Webhook, if set, is told of every transition.
	Webhook *WebhookConfig `yaml:"webhook"`
	// MetricsAddr, if set, serves /metrics and /healthz there.
	MetricsAddr string `yaml:"metrics_addr"`

	// HTTPClient, if set, carries the metadata requests as it is; it does
	// not go with SourceAddr. Not read from YAML.
	HTTPClient *http.Client `yaml:"-"`
	// PollOnly turns the client's long-poll off (benchmarks). Not read from
	// YAML.
	PollOnly bool `yaml:"-"`
	// Clock times fallbacks and latencies; nil is the real clock. Not read
	// from YAML.
	Clock clockwork.Clock `yaml:"-"`

	// src is where the values came from, for the problems to say.
	src *source
}

// Hooks are the commands of one event type, per transition; nil runs
// nothing.
type Hooks struct {
	OnScheduled *Hook `yaml:"on_scheduled"`
	OnStarted   *Hook `yaml:"on_started"`
	OnCompleted *Hook `yaml:"on_completed"`
	OnCancelled *Hook `yaml:"on_cancelled"`
}

// Hook is one command, run with /bin/sh -c.
type Hook struct {
	Command string `yaml:"command"`
	// Timeout kills the command; default DefaultHookTimeout.
	Timeout Duration `yaml:"timeout"`
}

// WebhookConfig is where and how transitions are posted.
type WebhookConfig struct {
	URL     string            `yaml:"url"`
	Headers map[string]string `yaml:"headers"`
	// Template is a text/template over Notification; "" posts the default
	// JSON object. The function json encodes a value.
	Template string `yaml:"template"`
	// Retries after a failed POST; default DefaultWebhookRetries, -1 none.
	Retries int `yaml:"retries"`
	// Timeout bounds each POST; default DefaultWebhookTimeout.
	Timeout Duration `yaml:"timeout"`
}

// Duration is a time.Duration read from YAML in Go's syntax ("30s").
type Duration time.Duration

// UnmarshalYAML reads a duration such as "90s" or "5m".
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := parseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*d = v
	return nil
}

// parseDuration reads a duration that is not negative in Go's syntax.
func parseDuration(s string) (Duration, error) {
	v, err := time.ParseDuration(strings.TrimSpace(s))
	switch {
	case err != nil && isNumber(s):
		return 0, fmt.Errorf("invalid duration %s: want a unit, such as %ss", yamlmsg.Quote(s), strings.TrimSpace(s))
	case err != nil:
		return 0, fmt.Errorf("invalid duration %s: want such as 30s or 5m", yamlmsg.Quote(s))
	case v < 0:
		return 0, fmt.Errorf("negative duration %s", yamlmsg.Quote(s))
	}
	return Duration(v), nil
}

// isNumber reports whether s is digits, perhaps with a point, and no unit.
func isNumber(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && strings.Trim(s, "0123456789.") == ""
}

// byName lists the hooks by their YAML names.
func (h Hooks) byName() map[string]*Hook {
	return map[string]*Hook{"on_scheduled": h.OnScheduled, "on_started": h.OnStarted,
		"on_completed": h.OnCompleted, "on_cancelled": h.OnCancelled}
}

// hooksFor returns the hooks of an event type, else the default's.
func (c *Config) hooksFor(typ string) Hooks {
	if h, ok := c.Hooks[EventType(typ)]; ok {
		return h
	}
	return c.Hooks[DefaultType]
}

// policyFor returns the approval policy of an event type, else the
// default's, else Never.
func (c *Config) policyFor(typ string) Policy {
	if p, ok := c.Approval[EventType(typ)]; ok {
		return p
	}
	if p, ok := c.Approval[DefaultType]; ok {
		return p
	}
	return Never
}

// withDefaults fills the zero fields.
func (c Config) withDefaults() Config {
	if c.StateFile == "" {
		c.StateFile = DefaultStateFile
	}
	if c.LeaderFallback == 0 {
		c.LeaderFallback = Duration(DefaultLeaderFallback)
	}
	if c.Clock == nil {
		c.Clock = clockwork.NewRealClock()
	}
	return c
}
