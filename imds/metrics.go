package imds

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/forewarn/forewarn/internal/promreg"
)

// metrics counts and times the requests. A nil *metrics records nothing.
type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	chaos    *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	if reg == nil {
		return nil, nil
	}
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "forewarn_metadata_requests_total",
			Help: "Requests to the metadata endpoint, by path and status code.",
		}, []string{"path", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "forewarn_metadata_request_duration_seconds",
			Help:    "Time to answer a metadata request, long-polls included, by path.",
			Buckets: []float64{.0005, .001, .005, .01, .05, .1, .5, 1, 5, 30, 60, 300},
		}, []string{"path"}),
		chaos: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "forewarn_metadata_chaos_total",
			Help: "Requests hit by a chaos rule, by fault: the status answered, or delay.",
		}, []string{"fault"}),
	}
	var err error
	m.requests, err = promreg.Register(reg, m.requests)
	if err != nil {
		return nil, err
	}
	m.duration, err = promreg.Register(reg, m.duration)
	if err != nil {
		return nil, err
	}
	m.chaos, err = promreg.Register(reg, m.chaos)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// observe records one answered request; status 0 means none was written
// (the client went away).
func (m *metrics) observe(rt route, status int, took time.Duration) {
	if m == nil {
		return
	}
	code := "none"
	if status != 0 {
		code = strconv.Itoa(status)
	}
	m.requests.WithLabelValues(rt.label(), code).Inc()
	m.duration.WithLabelValues(rt.label()).Observe(took.Seconds())
}

// observeChaos counts one request hit by a chaos rule.
func (m *metrics) observeChaos(fault string) {
	if m == nil {
		return
	}
	m.chaos.WithLabelValues(fault).Inc()
}
