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
		m.requests = mustRegister(reg, m.requests)
		m.duration = mustRegister(reg, m.duration)
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

// observe counts one answered request. route is the pattern that matched,
// never the raw path, so that the number of series stays bounded.
func (m *metrics) observe(route string, status int, elapsed time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(route).Observe(elapsed.Seconds())
}
