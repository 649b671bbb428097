package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync"

	"github.com/forewarn/forewarn/client"
	"github.com/jonboulle/clockwork"
	"github.com/prometheus/client_golang/prometheus"
)

// Agent watches the metadata service for one VM and acts on its events.
type Agent struct {
	cfg       Config
	log       *slog.Logger
	client    *client.Client
	transport *countingTransport
	state     *store
	metrics   *metrics
	webhook   *webhook
	clock     clockwork.Clock

	vm          string
	metricsAddr net.Addr
	ready       chan struct{} // closed once the VM name is known

	// workers are the events being followed; only the watch goroutine
	// touches the map.
	workers   map[string]*worker
	delivered bool // a document has been handled
	wg        sync.WaitGroup
}

// New checks cfg with Validate, then the endpoint of FOREWARN_ENDPOINT if
// cfg names none and the state file (its directory, or the nearest one
// above it that exists, must take a new file; nothing is left behind),
// opens the state file and prepares the client. It does not touch the
// network. The error of a bad cfg is a *ConfigError that lists every
// problem.
func New(cfg Config, logger *slog.Logger) (*Agent, error) {
	ch := cfg.check()
	if cfg.Endpoint == "" {
		checkEnvEndpoint(ch)
	}
	isDefault := cfg.StateFile == ""
	cfg = cfg.withDefaults()
	st := checkState(ch, cfg.StateFile, isDefault)
	if err := ch.err(); err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	log := logger.With("component", "agent")
	m := newMetrics()
	source, _ := netip.ParseAddr(cfg.SourceAddr) // checked; "" is the zero Addr
	hc, transport := instrument(cfg.HTTPClient, source, m.metadataErrors)
	opts := []client.Option{client.WithEndpoint(cfg.Endpoint), client.WithAPIVersion(cfg.APIVersion),
		client.WithHTTPClient(hc), client.WithLogger(logger.With("component", "client"))}
	if cfg.PollOnly {
		opts = append(opts, client.WithLongPollTimeout(0))
	}
	wh, err := newWebhook(cfg.Webhook, cfg.Clock, log)
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	return &Agent{cfg: cfg, log: log, client: client.New(opts...), transport: transport, state: st,
		metrics: m, webhook: wh, clock: cfg.Clock, vm: cfg.VMName, ready: make(chan struct{}),
		workers: map[string]*worker{}}, nil
}

// Registry returns the registry of the agent's metrics.
func (a *Agent) Registry() *prometheus.Registry { return a.metrics.reg }

// VMName returns the VM name the agent matches in Resources; "" until Run
// has learnt it.
func (a *Agent) VMName() string {
	select {
	case <-a.ready:
		return a.vm
	default:
		return ""
	}
}

// MetricsAddr returns the address /metrics listens on, nil if none (or
// before Run has started it).
func (a *Agent) MetricsAddr() net.Addr {
	select {
	case <-a.ready:
		return a.metricsAddr
	default:
		return nil
	}
}

// Run follows the events until ctx ends, then waits for the hooks in
// flight (which ctx ends too) and returns nil. Metadata errors are logged
// and retried, never returned.
func (a *Agent) Run(ctx context.Context) error {
	if a.cfg.MetricsAddr != "" {
		addr, err := serveMetrics(ctx, a.cfg.MetricsAddr, a.metrics, a.healthy, a.log)
		if err != nil {
			return fmt.Errorf("agent: %w", err)
		}
		a.metricsAddr = addr
	}
	a.vm = a.resolveVMName(ctx)
	close(a.ready)
	if err := a.state.prune(a.clock.Now().Add(-keepFinished)); err != nil {
		a.log.Warn("prune state failed", "error", err)
	}
	if a.webhook != nil {
		a.wg.Go(func() { a.webhook.run(ctx) })
	}
	a.log.Info("agent started", "vm", a.vm, "endpoint", a.client.Endpoint(), "source_addr", a.cfg.SourceAddr, "state_file", a.cfg.StateFile)
	err := a.client.Watch(ctx, func(doc *client.Document) error {
		a.handle(ctx, doc)
		return nil
	})
	a.wg.Wait()
	if !errors.Is(err, ctx.Err()) { // Watch returns only when ctx ends, or with an error
		return fmt.Errorf("agent: watch: %w", err)
	}
	a.log.Info("agent stopped", "vm", a.vm)
	return nil
}

// resolveVMName returns the configured name, else the instance metadata's,
// else the host name.
func (a *Agent) resolveVMName(ctx context.Context) string {
	if a.cfg.VMName != "" {
		return a.cfg.VMName
	}
	compute, err := a.client.Instance(ctx)
	if err == nil && strings.TrimSpace(compute.Name) != "" {
		return compute.Name
	}
	host, herr := os.Hostname()
	a.log.Warn("instance metadata gave no VM name, using the host name", "error", err, "host", host)
	if herr != nil {
		a.log.Error("no host name either", "error", herr)
	}
	return host
}

// healthy fails after unhealthyAfter failed metadata requests in a row.
func (a *Agent) healthy() error {
	if n := a.transport.inRow.Load(); n >= unhealthyAfter {
		return fmt.Errorf("%d metadata requests failed in a row", n)
	}
	return nil
}
