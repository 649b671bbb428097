package fabric

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/forewarn/forewarn"
)

// metrics are the fabric's Prometheus metrics.
type metrics struct {
	created           *prometheus.CounterVec
	started           *prometheus.CounterVec
	ended             *prometheus.CounterVec
	approvals         *prometheus.CounterVec
	inFlight          *prometheus.GaugeVec
	actuationFailures *prometheus.CounterVec
	campaignDomains   *prometheus.GaugeVec
	campaignInFlight  *prometheus.GaugeVec
	campaignEnd       *prometheus.GaugeVec
	lateness          *prometheus.HistogramVec
	tickFailures      prometheus.Counter
	store             *prometheus.HistogramVec
	leader            prometheus.Gauge

	mu     sync.Mutex
	scopes map[string][]inFlightKey // the events in flight of each scope
}

// inFlightKey is the labels of forewarn_events.
type inFlightKey struct {
	typ    forewarn.EventType
	status forewarn.EventStatus
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		created: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "forewarn_events_created_total", Help: "Events created, by type and source.",
		}, []string{"type", "source"}),
		started: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "forewarn_events_started_total", Help: "Events started, by type.",
		}, []string{"type"}),
		ended: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "forewarn_events_ended_total", Help: "Events that left the document, by type and outcome.",
		}, []string{"type", "outcome"}),
		approvals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "forewarn_approvals_total", Help: "Event approvals, by who approved (vm or admin).",
		}, []string{"by"}),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "forewarn_events", Help: "Events in flight, by type and status.",
		}, []string{"type", "status"}),
		store: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "forewarn_store_transaction_duration_seconds",
			Help:    "Time of store transactions, by kind (view or update).",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
		}, []string{"op"}),
		actuationFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "forewarn_actuation_failures_total",
			Help: "VMs on which the actuator failed for good, by event type.",
		}, []string{"type"}),
		campaignDomains: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "forewarn_campaign_update_domains",
			Help: "Update domains of each campaign, done and in all (progress = done / total).",
		}, []string{"campaign", "type", "count"}),
		campaignInFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "forewarn_campaign_events_in_flight",
			Help: "Events in flight of each running campaign.",
		}, []string{"campaign"}),
		campaignEnd: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "forewarn_campaign_estimated_end_timestamp_seconds",
			Help: "When each running campaign should finish (Unix time); 0 once it has ended.",
		}, []string{"campaign"}),
		lateness: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "forewarn_event_lateness_seconds",
			Help: "How late events started after their NotBefore (at=start; approved ones are not counted), " +
				"and completed after their nominal end, EndsAt (at=end).",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 14),
		}, []string{"at"}),
		tickFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "forewarn_scheduler_failures_total",
			Help: "Passes of the leader's scheduler that failed (the store out of reach or full): events not started or completed in time.",
		}),
		leader: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "forewarn_leader",
			Help: "1 while this replica runs the time-driven work, else 0.",
		}),
		scopes: map[string][]inFlightKey{},
	}
	for _, t := range forewarn.EventTypes { // every series shows, at 0 until used
		for _, s := range []forewarn.EventStatus{forewarn.Scheduled, forewarn.Started} {
			m.inFlight.WithLabelValues(string(t), string(s))
		}
	}
	if reg != nil {
		reg.MustRegister(m.created, m.started, m.ended, m.approvals, m.inFlight, m.store, m.actuationFailures,
			m.campaignDomains, m.campaignInFlight, m.campaignEnd, m.lateness, m.tickFailures, m.leader)
	}
	return m
}

func (m *metrics) observeStore(op string, start time.Time) {
	m.store.WithLabelValues(op).Observe(time.Since(start).Seconds())
}

// record counts what a committed transaction did.
func (m *metrics) record(c *changes) {
	for _, e := range c.created {
		m.created.WithLabelValues(string(e.Type), string(e.Source)).Inc()
	}
	for _, e := range c.started {
		m.started.WithLabelValues(string(e.Type)).Inc()
	}
	for _, e := range c.ended {
		m.ended.WithLabelValues(string(e.Type), string(e.Outcome)).Inc()
		if e.Outcome == forewarn.Completed && !e.EndsAt.IsZero() {
			m.lateness.WithLabelValues("end").Observe(max(0, e.EndedAt.Sub(e.EndsAt).Seconds()))
		}
	}
	for _, d := range c.lateStarts {
		m.lateness.WithLabelValues("start").Observe(max(0, d.Seconds()))
	}
	for _, campaign := range c.campaigns {
		m.setCampaign(campaign)
	}
	for _, by := range c.approvals {
		label := "vm"
		if by == forewarn.ApprovedByAdmin {
			label = "admin"
		}
		m.approvals.WithLabelValues(label).Inc()
	}
}

// setScope records the events in flight of a scope (nil: scope gone),
// moving the gauge by the difference from what it had: a publish costs the
// scope's events, not the fleet's.
func (m *metrics) setScope(name string, events []*forewarn.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range m.scopes[name] {
		m.inFlight.WithLabelValues(string(k.typ), string(k.status)).Dec()
	}
	if events == nil {
		delete(m.scopes, name)
		return
	}
	keys := make([]inFlightKey, len(events))
	for i, e := range events {
		keys[i] = inFlightKey{e.Type, e.Status}
		m.inFlight.WithLabelValues(string(e.Type), string(e.Status)).Inc()
	}
	m.scopes[name] = keys
}

// setCampaign records a campaign's progress; an ended campaign keeps its
// counts and shows no events in flight.
func (m *metrics) setCampaign(c *forewarn.Campaign) {
	done, total, inFlight := 0, 0, 0
	for _, p := range c.Scopes {
		done += min(p.Done, p.UpdateDomains)
		total += p.UpdateDomains
		if p.Event != "" {
			inFlight++
		}
	}
	m.campaignDomains.WithLabelValues(c.ID, string(c.Spec.Type), "done").Set(float64(done))
	m.campaignDomains.WithLabelValues(c.ID, string(c.Spec.Type), "total").Set(float64(total))
	m.campaignInFlight.WithLabelValues(c.ID).Set(float64(inFlight))
	end := 0.0
	if !c.EstimatedEnd.IsZero() {
		end = float64(c.EstimatedEnd.Unix())
	}
	m.campaignEnd.WithLabelValues(c.ID).Set(end)
}
