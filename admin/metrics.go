package admin

import (
	"errors"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the API's own metrics.
type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
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
	}
	if reg != nil {
		m.requests = register(reg, m.requests)
		m.duration = register(reg, m.duration)
	}
	return m
}

// register registers c with reg, or returns the collector that already is.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	err := reg.Register(c)
	if err == nil {
		return c
	}
	var already prometheus.AlreadyRegisteredError
	if errors.As(err, &already) {
		if existing, ok := already.ExistingCollector.(C); ok {
			return existing
		}
	}
	panic("admin: register metrics: " + err.Error())
}

// observe counts one answered request. route is the pattern that matched,
// never the raw path, so that the number of series stays bounded.
func (m *metrics) observe(route string, status int, elapsed time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(route).Observe(elapsed.Seconds())
}
