package imds

import (
	"maps"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/forewarn/forewarn/internal/promreg"
)

// metrics counts and times the requests. A nil *metrics records nothing.
type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	chaos    *prometheus.CounterVec

	// WithLabelValues builds and hashes a label list on every call; the
	// series of each route and status are looked up once and kept here.
	// series is replaced, never changed, when a new pair is seen (under
	// seriesMu), so that observe reads it without a lock.
	seriesMu sync.Mutex
	series   atomic.Pointer[map[seriesKey]requestSeries]
}

// seriesKey names the series of one route and status (0: none written).
type seriesKey struct {
	route  route
	status int
}

// requestSeries is the request counter and latency histogram of a
// seriesKey.
type requestSeries struct {
	requests prometheus.Counter
	duration prometheus.Observer
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
	rs := m.seriesOf(seriesKey{route: rt, status: status})
	rs.requests.Inc()
	rs.duration.Observe(took.Seconds())
}

// seriesOf returns the series of a route and status, looking them up in
// the vectors the first time.
func (m *metrics) seriesOf(k seriesKey) requestSeries {
	if known := m.series.Load(); known != nil {
		if rs, ok := (*known)[k]; ok {
			return rs
		}
	}
	m.seriesMu.Lock()
	defer m.seriesMu.Unlock()
	known := m.series.Load()
	if known != nil {
		if rs, ok := (*known)[k]; ok {
			return rs
		}
	}
	code := "none"
	if k.status != 0 {
		code = strconv.Itoa(k.status)
	}
	rs := requestSeries{
		requests: m.requests.WithLabelValues(k.route.label(), code),
		duration: m.duration.WithLabelValues(k.route.label()),
	}
	next := make(map[seriesKey]requestSeries, 1)
	if known != nil {
		maps.Copy(next, *known)
	}
	next[k] = rs
	m.series.Store(&next)
	return rs
}

// observeChaos counts one request hit by a chaos rule.
func (m *metrics) observeChaos(fault string) {
	if m == nil {
		return
	}
	m.chaos.WithLabelValues(fault).Inc()
}
