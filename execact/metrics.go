package execact

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/promreg"
)

// The results of an attempt, as the result label of
// forewarn_exec_runs_total has them.
const (
	resultOK      = "ok"
	resultFail    = "fail"
	resultTimeout = "timeout"
	resultCancel  = "cancel"
)

// metrics counts the runs. A nil *metrics records nothing.
type metrics struct {
	runs     *prometheus.CounterVec
	failed   *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	if reg == nil {
		return nil, nil
	}
	m := &metrics{
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "forewarn_exec_runs_total",
			Help: "Attempts of the exec actuator's command, by event type and result (ok, fail, timeout, cancel).",
		}, []string{"type", "result"}),
		failed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "forewarn_exec_failed_vms_total",
			Help: "VMs on which the exec actuator's command failed for good, after all its attempts, by event type.",
		}, []string{"type"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "forewarn_exec_run_duration_seconds",
			Help:    "Time one attempt of the exec actuator's command took, by event type.",
			Buckets: []float64{.1, .5, 1, 5, 10, 30, 60, 120, 300, 600, 1800},
		}, []string{"type"}),
	}
	var err error
	if m.runs, err = promreg.Register(reg, m.runs); err != nil {
		return nil, err
	}
	if m.failed, err = promreg.Register(reg, m.failed); err != nil {
		return nil, err
	}
	if m.duration, err = promreg.Register(reg, m.duration); err != nil {
		return nil, err
	}
	return m, nil
}

// run records one attempt.
func (m *metrics) run(t forewarn.EventType, result string, took time.Duration) {
	if m == nil {
		return
	}
	m.runs.WithLabelValues(string(t), result).Inc()
	m.duration.WithLabelValues(string(t)).Observe(took.Seconds())
}

// failedVM records a VM given up on.
func (m *metrics) failedVM(t forewarn.EventType) {
	if m == nil {
		return
	}
	m.failed.WithLabelValues(string(t)).Inc()
}
