package admin

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/forewarn/forewarn"
)

// operations are the user operations of POST /v1/vms/{name}/{operation}.
var operations = []forewarn.Operation{
	forewarn.OpRestart, forewarn.OpRedeploy, forewarn.OpEvict, forewarn.OpTerminate,
}

// routes registers every route. The patterns are also the route labels of
// the metrics.
func (s *Server) routes(gatherer prometheus.Gatherer) {
	s.mux.HandleFunc("GET /healthz", s.health)
	if gatherer != nil {
		s.mux.Handle("GET /metrics", promhttp.HandlerFor(gatherer, promhttp.HandlerOpts{}))
	}

	s.route("GET /v1/scopes", s.listScopes)
	s.route("POST /v1/scopes", s.createScope)
	s.route("GET /v1/scopes/{name}", s.getScope)
	s.route("DELETE /v1/scopes/{name}", s.deleteScope)
	s.route("GET /v1/scopes/{name}/polls", s.listPolls)

	s.route("GET /v1/vms", s.listVMs, vmListParams...)
	s.route("POST /v1/vms", s.createVM)
	s.route("POST /v1/batch", s.createBatch)
	s.route("GET /v1/vms/{name}", s.getVM)
	s.route("DELETE /v1/vms/{name}", s.deleteVM)
	for _, op := range operations {
		s.route("POST /v1/vms/{name}/"+string(op), s.operate(op))
	}
	s.route("POST /v1/vms/{name}/fail", s.fail)
	s.route("POST /v1/vms/{name}/degrade", s.degrade)
	s.route("POST /v1/vms/{name}/{operation}", s.unknownOperation)

	s.route("GET /v1/events", s.listEvents, eventListParams...)
	s.route("GET /v1/events/{id}", s.getEvent)
	s.route("POST /v1/events/{id}/approve", s.approve)
	s.route("POST /v1/events/{id}/cancel", s.cancel)
	s.route("POST /v1/events/{id}/resolve", s.resolve)
	s.route("GET /v1/history", s.history, historyParams...)

	s.route("GET /v1/campaigns", s.listCampaigns)
	s.route("POST /v1/campaigns", s.startCampaign)
	s.route("GET /v1/campaigns/{id}", s.getCampaign)
	for _, action := range campaignActions {
		s.route("POST /v1/campaigns/{id}/"+string(action), s.steerCampaign(action))
	}
	s.route("POST /v1/campaigns/{id}/{action}", s.unknownCampaignAction)

	s.route("GET /v1/chaos", s.listChaos)
	s.route("POST /v1/chaos", s.addChaos)
	s.route("DELETE /v1/chaos/{id}", s.deleteChaos)

	s.route("GET /v1/status", s.status)
	s.mux.HandleFunc(streamRoute, s.stream)

	s.uiRoutes()
}

// apiFunc handles one API request; an error it returns is the answer.
type apiFunc func(w http.ResponseWriter, r *http.Request, q url.Values) error

// DefaultRequestTimeout is Config.RequestTimeout's default.
const DefaultRequestTimeout = 15 * time.Second

// route registers an API route that takes the given query parameters.
func (s *Server) route(pattern string, fn apiFunc, params ...string) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), s.timeout)
		defer cancel()
		r = r.WithContext(ctx)
		q, err := checkQuery(r.URL.RawQuery, params)
		if err == nil {
			err = fn(w, r, q)
		}
		if err != nil {
			s.writeError(w, r, err)
		}
	})
}

// health answers GET /healthz.
func (s *Server) health(w http.ResponseWriter, _ *http.Request) {
	s.writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
