package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the agent's Prometheus metrics, in a registry of its own.
type metrics struct {
	reg            *prometheus.Registry
	eventsSeen     *prometheus.CounterVec
	hookRuns       *prometheus.CounterVec
	approvals      prometheus.Counter
	hookLatency    *prometheus.HistogramVec
	metadataErrors prometheus.Counter
}

// newMetrics registers the metrics.
func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		eventsSeen: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "forewarn_agent_events_seen_total",
			Help: "Events seen for the first time, by type.",
		}, []string{"type"}),
		hookRuns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "forewarn_agent_hook_runs_total",
			Help: "Hooks run, by hook and result (ok, failed).",
		}, []string{"hook", "result"}),
		approvals: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "forewarn_agent_approvals_total",
			Help: "Events the agent approved.",
		}),
		hookLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "forewarn_agent_hook_latency_seconds",
			Help:    "Time from an event first seen to one of its hooks done, by hook.",
			Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600},
		}, []string{"hook"}),
		metadataErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "forewarn_agent_metadata_errors_total",
			Help: "Failed requests to the metadata service (reads, approvals, instance).",
		}),
	}
	m.reg.MustRegister(m.eventsSeen, m.hookRuns, m.approvals, m.hookLatency, m.metadataErrors)
	return m
}

// serveMetrics serves /metrics and /healthz on addr until ctx ends. It
// returns once listening, with the listener's address.
func serveMetrics(ctx context.Context, addr string, m *metrics, healthy func() error, log *slog.Logger) (net.Addr, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics listener: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		if err := healthy(); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server failed", "error", err)
		}
	}()
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	return ln.Addr(), nil
}
