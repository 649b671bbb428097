package imds

import (
	"net/http"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// counterValue reads forewarn_metadata_requests_total{path,code} from reg.
func counterValue(tb testing.TB, reg prometheus.Gatherer, path, code string) float64 {
	tb.Helper()
	families, err := reg.Gather()
	if err != nil {
		tb.Fatalf("gather: %v", err)
	}
	for _, f := range families {
		if f.GetName() != "forewarn_metadata_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["path"] == path && labels["code"] == code {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// histogramSeries counts the series of the latency histogram in reg.
func histogramSeries(tb testing.TB, reg prometheus.Gatherer) int {
	tb.Helper()
	families, err := reg.Gather()
	if err != nil {
		tb.Fatalf("gather: %v", err)
	}
	for _, f := range families {
		if f.GetName() == "forewarn_metadata_request_duration_seconds" {
			return len(f.GetMetric())
		}
	}
	return 0
}

func TestMetrics(t *testing.T) {
	e := mustStartEnv(t)
	e.get(t, addrWeb0, eventsURL("2020-07-01"))
	e.get(t, addrWeb0, eventsURL("2020-07-01"))
	e.get(t, addrUnknown, eventsURL("2020-07-01"))
	e.get(t, addrWeb0, "/nope")
	e.get(t, addrWeb0, eventsURL("2020-07-01"), "If-None-Match", `"4"`)

	for _, c := range []struct {
		path, code string
		want       float64
	}{
		{pathEvents, "200", 2},
		{pathEvents, "403", 1},
		{pathEvents, "304", 1},
		{"other", "404", 1},
	} {
		if got := counterValue(t, e.reg, c.path, c.code); got != c.want {
			t.Errorf("requests{%s,%s} = %v, want %v", c.path, c.code, got, c.want)
		}
	}
	if n := histogramSeries(t, e.reg); n != 2 {
		t.Errorf("%d duration series, want 2", n)
	}
}

// TestMetricsSharedRegistry: a second Server on one registry shares the
// collectors instead of failing.
func TestMetricsSharedRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	a := New(Config{Metadata: &fakeMetadata{}, Registerer: reg})
	b := New(Config{Metadata: &fakeMetadata{}, Registerer: reg})
	if a.metrics == nil || b.metrics == nil || a.metrics.requests != b.metrics.requests {
		t.Fatal("collectors not shared")
	}
	a.metrics.observe(routeEvents, http.StatusOK, 0)
	b.metrics.observe(routeEvents, http.StatusOK, 0)
	if got := counterValue(t, reg, pathEvents, "200"); got != 2 {
		t.Errorf("count %v, want 2", got)
	}
}
