package admin_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/forewarn/forewarn/fabric"
)

// apiRoutes is one request to every /v1/ route.
var apiRoutes = []struct{ method, path, body string }{
	{"GET", "/v1/scopes", ""},
	{"POST", "/v1/scopes", `{"name":"web"}`},
	{"GET", "/v1/scopes/web", ""},
	{"DELETE", "/v1/scopes/web", ""},
	{"GET", "/v1/vms?scope=web", ""},
	{"POST", "/v1/vms", `{"name":"web-0","scope":"web"}`},
	{"GET", "/v1/vms/web-0", ""},
	{"DELETE", "/v1/vms/web-0", ""},
	{"POST", "/v1/vms/web-0/restart", ""},
	{"POST", "/v1/vms/web-0/redeploy", ""},
	{"POST", "/v1/vms/web-0/evict", ""},
	{"POST", "/v1/vms/web-0/terminate", ""},
	{"GET", "/v1/events?scope=web", ""},
	{"GET", "/v1/events/EVT-0001", ""},
	{"POST", "/v1/events/EVT-0001/approve", ""},
	{"POST", "/v1/events/EVT-0001/cancel", ""},
	{"GET", "/v1/history?limit=5", ""},
	{"POST", "/v1/vms/web-0/fail", ""},
	{"POST", "/v1/vms/web-0/degrade", `{"notice":"7d"}`},
	{"POST", "/v1/events/EVT-0001/resolve", `{"action":"complete"}`},
	{"GET", "/v1/campaigns", ""},
	{"POST", "/v1/campaigns", `{"type":"Reboot","all":true}`},
	{"GET", "/v1/campaigns/CMP-0001", ""},
	{"POST", "/v1/campaigns/CMP-0001/pause", ""},
	{"POST", "/v1/campaigns/CMP-0001/resume", ""},
	{"POST", "/v1/campaigns/CMP-0001/cancel", ""},
	{"POST", "/v1/campaigns/CMP-0001/stop", ""},
	{"GET", "/v1/chaos", ""},
	{"POST", "/v1/chaos", `{"status":500,"fraction":1,"for":"1m"}`},
	{"DELETE", "/v1/chaos/CHAOS-0001", ""},
	{"GET", "/v1/no-such-route", ""},
	{"GET", "//v1/scopes", ""},
}

func TestUnauthorized(t *testing.T) {
	env := mustStart(t)
	credentials := []struct {
		name   string
		header []string
		want   string
	}{
		{"no header", nil, "missing bearer token"},
		{"wrong token", []string{"Authorization", "Bearer wrong"}, "invalid bearer token"},
		{"token prefix", []string{"Authorization", "Bearer " + testToken[:4]}, "invalid bearer token"},
		{"token and more", []string{"Authorization", "Bearer " + testToken + "x"}, "invalid bearer token"},
		{"basic scheme", []string{"Authorization", "Basic " + testToken}, "missing bearer token"},
		{"empty bearer", []string{"Authorization", "Bearer "}, "missing bearer token"},
	}
	for _, cred := range credentials {
		for _, r := range apiRoutes {
			a := env.request(t, r.method, r.path, "", r.body, cred.header...)
			if a.status != http.StatusUnauthorized {
				t.Errorf("%s: %s %s = %d, want 401", cred.name, r.method, r.path, a.status)
				continue
			}
			if msg := a.errorMessage(t); !strings.Contains(msg, cred.want) {
				t.Errorf("%s: %s %s: message %q, want %q", cred.name, r.method, r.path, msg, cred.want)
			}
			if h := a.header.Get("WWW-Authenticate"); !strings.HasPrefix(h, "Bearer") {
				t.Errorf("%s: %s %s: WWW-Authenticate = %q", cred.name, r.method, r.path, h)
			}
		}
	}
	if n, changes := env.store.counts(); n != 0 || changes != 0 {
		t.Errorf("the fleet made %d transactions and %d changes without a valid token", n, changes)
	}
}

func TestBearerSchemeIsCaseInsensitive(t *testing.T) {
	env := mustStart(t)
	a := env.request(t, "GET", "/v1/scopes", "", "", "Authorization", "bearer "+testToken)
	if a.status != http.StatusOK {
		t.Errorf("GET /v1/scopes with scheme 'bearer' = %d %s, want 200", a.status, a.body)
	}
}

func TestNoTokenNeeded(t *testing.T) {
	env := mustStart(t)
	for _, path := range []string{"/healthz", "/metrics"} {
		if a := env.request(t, "GET", path, "", ""); a.status != http.StatusOK {
			t.Errorf("GET %s without a token = %d %s, want 200", path, a.status, a.body)
		}
	}
	if err := env.client.Health(t.Context()); err != nil {
		t.Errorf("Health: %v", err)
	}
}

// TestEmptyTokenRefusesAll checks that a server configured without a token
// refuses every request, also one that sends an empty token.
func TestEmptyTokenRefusesAll(t *testing.T) {
	env := mustStartWith(t, "", fabric.Config{})
	for _, token := range []string{"", " ", "x"} {
		a := env.request(t, "GET", "/v1/scopes", "", "", "Authorization", "Bearer "+token)
		if a.status != http.StatusUnauthorized {
			t.Errorf("token %q on a server without a token: %d, want 401", token, a.status)
		}
	}
	if n, _ := env.store.counts(); n != 0 {
		t.Errorf("the fleet made %d transactions", n)
	}
}
