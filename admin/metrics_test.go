package admin_test

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/forewarn/forewarn/admin"
	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/internal/fabrictest"
)

func TestMetrics(t *testing.T) {
	env := mustStart(t)
	env.request(t, "POST", "/v1/scopes", testToken, `{"name":"web"}`)
	env.request(t, "GET", "/v1/scopes/web", testToken, "")
	env.request(t, "GET", "/v1/scopes/nope", testToken, "")
	env.request(t, "GET", "/v1/scopes/nope", "", "")
	env.request(t, "GET", "/v1/made/up/path", testToken, "")

	a := env.request(t, "GET", "/metrics", "", "")
	if a.status != 200 {
		t.Fatalf("GET /metrics = %d", a.status)
	}
	for _, want := range []string{
		`forewarn_admin_requests_total{code="201",route="POST /v1/scopes"} 1`,
		`forewarn_admin_requests_total{code="200",route="GET /v1/scopes/{name}"} 1`,
		`forewarn_admin_requests_total{code="404",route="GET /v1/scopes/{name}"} 1`,
		`forewarn_admin_requests_total{code="401",route="GET /v1/scopes/{name}"} 1`,
		`forewarn_admin_requests_total{code="404",route="unmatched"} 1`,
		`forewarn_admin_request_duration_seconds_count{route="GET /v1/scopes/{name}"} 3`,
	} {
		if !strings.Contains(a.body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	for _, raw := range []string{"/v1/scopes/web", "/v1/made/up/path"} {
		if strings.Contains(a.body, `route="`+raw) {
			t.Errorf("/metrics has the raw path %s as a label", raw)
		}
	}
}

// TestStreamMetrics: the gauge counts the live streams open, and a
// stream's duration stays out of the request histogram.
func TestStreamMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	api := admin.NewServer(admin.Config{Fleet: fabrictest.New(t, fabric.Config{}), Token: testToken, Hub: admin.NewHub(),
		Registerer: reg, Gatherer: reg})
	server := newStreamServer(t, api)
	metric := func() string {
		var b strings.Builder
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range families {
			if f.GetName() == "forewarn_admin_streams" {
				fmt.Fprint(&b, f.GetMetric()[0].GetGauge().GetValue())
			}
		}
		return b.String()
	}
	s := openStream(t, server)
	s.readInitial(t)
	if got := metric(); got != "1" {
		t.Errorf("forewarn_admin_streams with a stream open = %q, want 1", got)
	}
	s.close()
	deadline := time.Now().Add(5 * time.Second)
	for metric() != "0" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := metric(); got != "0" {
		t.Errorf("forewarn_admin_streams after the stream closed = %q, want 0", got)
	}
	families, _ := reg.Gather()
	for _, f := range families {
		if f.GetName() == "forewarn_admin_request_duration_seconds" {
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetValue() == "GET /v1/stream" {
						t.Errorf("the stream's duration is in the request histogram")
					}
				}
			}
		}
	}
}

// TestTwoServersShareMetrics checks that a second server on the same
// registry does not panic and counts into the same series.
func TestTwoServersShareMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	for range 2 {
		api := admin.NewServer(admin.Config{Fleet: fabrictest.New(t, fabric.Config{}), Token: testToken, Registerer: reg, Gatherer: reg})
		req := httptest.NewRequest("GET", "/v1/scopes/nope", nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		w := httptest.NewRecorder()
		api.ServeHTTP(w, req)
		if w.Code != 404 {
			t.Fatalf("GET /v1/scopes/nope = %d, want 404", w.Code)
		}
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var requests, durations []string
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			switch f.GetName() {
			case "forewarn_admin_requests_total":
				requests = append(requests, fmt.Sprintf("%s %s %g", labels["route"], labels["code"], m.GetCounter().GetValue()))
			case "forewarn_admin_request_duration_seconds":
				durations = append(durations, fmt.Sprintf("%s %d", labels["route"], m.GetHistogram().GetSampleCount()))
			}
		}
	}
	if want := []string{"GET /v1/scopes/{name} 404 2"}; !slices.Equal(requests, want) {
		t.Errorf("forewarn_admin_requests_total series %q, want %q: both servers count into one", requests, want)
	}
	if want := []string{"GET /v1/scopes/{name} 2"}; !slices.Equal(durations, want) {
		t.Errorf("forewarn_admin_request_duration_seconds series %q, want %q: both servers count into one", durations, want)
	}
}

func TestNoGathererNoMetrics(t *testing.T) {
	srv := httptest.NewServer(admin.NewServer(admin.Config{Fleet: fabrictest.New(t, fabric.Config{}), Token: testToken}))
	t.Cleanup(srv.Close)
	resp, err := srv.Client().Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("GET /metrics without a Gatherer = %d, want 404", resp.StatusCode)
	}
}
