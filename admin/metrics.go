package admin

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/forewarn/forewarn/internal/promreg"
)

// metrics are the API's own metrics.
type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	streams  prometheus.Gauge
}

// newMetrics makes the metrics and registers them with reg, if not nil. A
// second server on the same registry shares the first one's metrics.
func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "forewarn_admin_requests_total",
			Help: "Requests to the admin API, by route pattern and status code.",
		}, []string{"route", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "forewarn_admin_request_duration_seconds",
			Help:    "Time taken to answer admin API requests, by route pattern.",
			Buckets: prometheus.DefBuckets,
		}, []string{"route"}),
		streams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "forewarn_admin_streams",
			Help: "Live streams (GET /v1/stream) open now: the dashboards following the fleet.",
		}),
	}
	if reg != nil {
		m.requests = mustRegister(reg, m.requests)
		m.duration = mustRegister(reg, m.duration)
		m.streams = mustRegister(reg, m.streams)
	}
	return m
}

// mustRegister registers c, or reuses the collector already registered;
// anything else is a programming error.
func mustRegister[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	c, err := promreg.Register(reg, c)
	if err != nil {
		panic("admin: " + err.Error())
	}
	return c
}

// streamRoute is the live stream's route, which lasts as long as a
// dashboard stays open: its duration would only drown the others'.
const streamRoute = "GET /v1/stream"

// observe counts one answered request. route is the pattern that matched,
// never the raw path, so that the number of series stays bounded.
func (m *metrics) observe(route string, status int, elapsed time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	if route != streamRoute {
		m.duration.WithLabelValues(route).Observe(elapsed.Seconds())
	}
}
