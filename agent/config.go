package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/jonboulle/clockwork"
	"gopkg.in/yaml.v3"
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

	// HTTPClient, if set, carries the metadata requests (tests bind it to a
	// local address to act as another VM). Not read from YAML.
	HTTPClient *http.Client `yaml:"-"`
	// PollOnly turns the client's long-poll off (benchmarks). Not read from
	// YAML.
	PollOnly bool `yaml:"-"`
	// Clock times fallbacks and latencies; nil is the real clock. Not read
	// from YAML.
	Clock clockwork.Clock `yaml:"-"`
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
	v, err := time.ParseDuration(strings.TrimSpace(n.Value))
	if err != nil || v < 0 {
		return fmt.Errorf("line %d: invalid duration %q: want e.g. \"30s\" or \"5m\"", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// LoadConfig reads the YAML file at path. Unknown keys are refused, with
// their line; the result is checked as New checks it.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load agent config: %w", err)
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		return nil, fmt.Errorf("load agent config %s: %w", path, err)
	}
	return cfg, nil
}

// ParseConfig reads a YAML configuration and checks it.
func ParseConfig(data []byte) (*Config, error) {
	var cfg Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	// A second document would be ignored, unknown keys and all.
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return nil, fmt.Errorf("line %d: a second YAML document: the configuration is a single document", next.Line)
	} else if !errors.Is(err, io.EOF) {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// Validate checks the event types, policies, hooks and webhook.
func (c *Config) Validate() error {
	for typ, hooks := range c.Hooks {
		if err := checkType(typ); err != nil {
			return fmt.Errorf("hooks: %w", err)
		}
		for name, h := range hooks.byName() {
			if h != nil && strings.TrimSpace(h.Command) == "" {
				return fmt.Errorf("hooks: %s.%s: no command", typ, name)
			}
		}
	}
	for typ, p := range c.Approval {
		if err := checkType(typ); err != nil {
			return fmt.Errorf("approval: %w", err)
		}
		if p != Never && p != AfterHook && p != Immediately {
			return fmt.Errorf("approval: %s: unknown policy %q: want never, after-hook or immediately", typ, p)
		}
	}
	if c.Webhook != nil {
		if err := c.Webhook.validate(); err != nil {
			return fmt.Errorf("webhook: %w", err)
		}
	}
	return nil
}

// checkType refuses a key that is no event type.
func checkType(t EventType) error {
	for _, known := range eventTypes {
		if t == known {
			return nil
		}
	}
	return fmt.Errorf("unknown event type %q: want Freeze, Reboot, Redeploy, Preempt, Terminate or default", t)
}

// validate checks the URL and the headers, so that a webhook net/http
// could never send is refused at start rather than at every transition,
// and parses the template.
func (w *WebhookConfig) validate() error {
	u, err := url.Parse(w.URL)
	if err != nil {
		return fmt.Errorf("url: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("url %q: want http:// or https:// and a host", w.URL)
	}
	for name, value := range w.Headers {
		if err := checkHeader(name, value); err != nil {
			return err
		}
	}
	if _, err := parseTemplate(w.Template); err != nil {
		return err
	}
	return nil
}

// tokenPunct are the characters of an RFC 9110 token besides ASCII letters
// and digits.
const tokenPunct = "!#$%&'*+-.^_`|~"

// checkHeader refuses what net/http refuses to send (RFC 9110 5.1 and
// 5.5): a name that is not a token, a value with a control character other
// than a tab.
func checkHeader(name, value string) error {
	notToken := func(r rune) bool {
		return r > unicode.MaxASCII || !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(tokenPunct, r)
	}
	if name == "" || strings.ContainsFunc(name, notToken) {
		return fmt.Errorf("headers: name %q: want letters, digits and %s only", name, tokenPunct)
	}
	if strings.ContainsFunc(value, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
		return fmt.Errorf("headers: %s: the value holds a control character", name)
	}
	return nil
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
