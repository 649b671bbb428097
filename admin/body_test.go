package admin_test

import (
	"net/http"
	"strings"
	"testing"
)

func TestBadRequests(t *testing.T) {
	env := mustStart(t)
	env.request(t, "POST", "/v1/scopes", testToken, `{"name":"web"}`)
	env.request(t, "POST", "/v1/vms", testToken, `{"name":"web-0","scope":"web"}`)
	big := `{"name":"` + strings.Repeat("a", 1<<20) + `"}`
	cases := []struct {
		name, method, path, body string
		header                   []string
		status                   int
		want                     string
	}{
		{"not JSON", "POST", "/v1/scopes", `name=web`, nil, 400, "not valid JSON"},
		{"not an object", "POST", "/v1/scopes", `["web"]`, nil, 400, "must be a JSON object"},
		{"null", "POST", "/v1/vms", `null`, nil, 400, "must be a JSON object"},
		{"truncated", "POST", "/v1/scopes", `{"name":"web`, nil, 400, "not valid JSON"},
		{"unknown field", "POST", "/v1/scopes", `{"name":"db","updateDomain":3}`, nil, 400, `unknown field "updateDomain"`},
		{"wrong type", "POST", "/v1/scopes", `{"name":"db","faultDomains":"3"}`, nil, 400, `field "faultDomains" must be a whole number (got string)`},
		{"bad duration", "POST", "/v1/scopes", `{"name":"db","terminateNotice":"soon"}`, nil, 400, `invalid duration "soon"`},
		{"empty", "POST", "/v1/vms", ``, nil, 400, "request body is empty"},
		{"only space", "POST", "/v1/vms", " \n\t", nil, 400, "request body is empty"},
		{"too large", "POST", "/v1/scopes", big, nil, 413, "larger than 1048576 bytes"},
		{"trailing data", "POST", "/v1/scopes", `{"name":"db"} {"name":"x"}`, nil, 400, "data after the JSON object"},
		{"trailing garbage", "POST", "/v1/vms", `{"name":"db"}xyz`, nil, 400, `data after the JSON object: "xyz"`},
		{"form content type", "POST", "/v1/scopes", `{"name":"db"}`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, "must be JSON"},
		{"body on operate", "POST", "/v1/vms/web-0/restart", `{"force":true}`, nil, 400, `unknown field "force"`},
		{"garbage on approve", "POST", "/v1/events/EVT-0001/approve", `yes`, nil, 400, "not valid JSON"},
		{"bad limit", "GET", "/v1/history?limit=abc", ``, nil, 400, `limit must be a whole number from 1 to 10000, not "abc"`},
		{"limit zero", "GET", "/v1/history?limit=0", ``, nil, 400, `not "0"`},
		{"limit too high", "GET", "/v1/history?limit=10001", ``, nil, 400, `not "10001"`},
		{"limit empty", "GET", "/v1/history?limit=", ``, nil, 400, `not ""`},
		{"limit twice", "GET", "/v1/history?limit=1&limit=2", ``, nil, 400, `"limit" is given 2 times`},
		{"unknown parameter", "GET", "/v1/vms?scop=web", ``, nil, 400, `unknown query parameter "scop": this route takes scope`},
		{"parameter on POST", "POST", "/v1/vms/web-0/restart?now=1", ``, nil, 400, `unknown query parameter "now"`},
		{"malformed query", "GET", "/v1/events?scope=%zz", ``, nil, 400, "malformed query string"},
		{"unknown route", "GET", "/v1/nodes", ``, nil, 404, "no such path: /v1/nodes"},
		{"unknown operation", "POST", "/v1/vms/web-0/reboot", ``, nil, 404, `unknown operation "reboot": use restart, redeploy, evict, terminate, fail or degrade`},
		{"outside /v1", "GET", "/v2/scopes", ``, nil, 404, "no such path"},
		{"wrong method", "PUT", "/v1/scopes/web", `{}`, nil, 405, "method PUT is not allowed on /v1/scopes/web"},
		{"GET on operate", "GET", "/v1/vms/web-0/restart", ``, nil, 405, "allowed: POST"},
		{"body on fail", "POST", "/v1/vms/web-0/fail", `{"now":true}`, nil, 400, `unknown field "now"`},
		{"degrade unknown field", "POST", "/v1/vms/web-0/degrade", `{"days":7}`, nil, 400, `unknown field "days"`},
		{"degrade bad notice", "POST", "/v1/vms/web-0/degrade", `{"notice":"a week"}`, nil, 400, `invalid duration "a week"`},
		{"degrade notice a number", "POST", "/v1/vms/web-0/degrade", `{"notice":7}`, nil, 400, `duration must be a string`},
		{"degrade negative notice", "POST", "/v1/vms/web-0/degrade", `{"notice":"-1h"}`, nil, 400, `notice must not be negative (got -1h0m0s)`},
		{"degrade garbage", "POST", "/v1/vms/web-0/degrade", `7d`, nil, 400, "not valid JSON"},
		{"resolve no body", "POST", "/v1/events/EVT-0001/resolve", ``, nil, 400, "request body is empty"},
		{"resolve no action", "POST", "/v1/events/EVT-0001/resolve", `{}`, nil, 400, `field "action" is missing: use complete or retry`},
		{"resolve unknown action", "POST", "/v1/events/EVT-0001/resolve", `{"action":"finish"}`, nil, 400, `unknown action "finish": use complete or retry`},
		{"resolve action case", "POST", "/v1/events/EVT-0001/resolve", `{"action":"Retry"}`, nil, 400, `unknown action "Retry"`},
		{"resolve action type", "POST", "/v1/events/EVT-0001/resolve", `{"action":1}`, nil, 400, `field "action" must be a string (got number)`},
		{"resolve unknown field", "POST", "/v1/events/EVT-0001/resolve", `{"action":"retry","forced":true}`, nil, 400, `unknown field "forced"`},
		{"campaign unknown field", "POST", "/v1/campaigns", `{"type":"Reboot","all":true,"udsAtOnce":2}`, nil, 400, `unknown field "udsAtOnce"`},
		{"campaign wrong type", "POST", "/v1/campaigns", `{"type":"Reboot","parallelScopes":"2"}`, nil, 400, `field "parallelScopes" must be a whole number (got string)`},
		{"campaign scopes not a list", "POST", "/v1/campaigns", `{"type":"Reboot","scopes":"web"}`, nil, 400, `field "scopes" must be an array (got string)`},
		{"campaign bad notice", "POST", "/v1/campaigns", `{"type":"Reboot","all":true,"notice":"soon"}`, nil, 400, `invalid duration "soon"`},
		{"campaign not an object", "POST", "/v1/campaigns", `"Reboot"`, nil, 400, "must be a JSON object"},
		{"campaign query", "GET", "/v1/campaigns?state=running", ``, nil, 400, `unknown query parameter "state": this route takes none`},
		{"body on pause", "POST", "/v1/campaigns/CMP-0001/pause", `{"reason":"x"}`, nil, 400, `unknown field "reason"`},
		{"unknown campaign action", "POST", "/v1/campaigns/CMP-0001/stop", ``, nil, 404, `unknown campaign action "stop": use pause, resume or cancel`},
		{"GET on steer", "GET", "/v1/campaigns/CMP-0001/pause", ``, nil, 405, "allowed: POST"},
		{"chaos unknown field", "POST", "/v1/chaos", `{"scope":"web","status":500,"fraction":1,"for":"1m","percent":5}`, nil, 400, `unknown field "percent"`},
		{"chaos fraction a string", "POST", "/v1/chaos", `{"status":500,"fraction":"half","for":"1m"}`, nil, 400, `field "fraction" must be a number (got string)`},
		{"chaos status a string", "POST", "/v1/chaos", `{"status":"500","fraction":1,"for":"1m"}`, nil, 400, `field "status" must be a whole number (got string)`},
		{"chaos bad for", "POST", "/v1/chaos", `{"status":500,"fraction":1,"for":"forever"}`, nil, 400, `invalid duration "forever"`},
		{"chaos trailing data", "POST", "/v1/chaos", `{"status":500,"fraction":1,"for":"1m"},`, nil, 400, "data after the JSON object"},
		{"GET one chaos rule", "GET", "/v1/chaos/CHAOS-0001", ``, nil, 405, "allowed: DELETE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := env.store.changes()
			a := env.request(t, tc.method, tc.path, testToken, tc.body, tc.header...)
			if a.status != tc.status {
				t.Errorf("status %d, want %d; body %s", a.status, tc.status, excerpt(a.body))
			}
			msg := a.errorMessage(t)
			if !strings.Contains(msg, tc.want) {
				t.Errorf("message %q, want it to say %q", msg, tc.want)
			}
			env.expectNoChange(t, before)
		})
	}
}

// TestBadBodiesReachNoFleet checks that a refused body never reaches the
// fleet.
func TestBadBodiesReachNoFleet(t *testing.T) {
	env := mustStart(t)
	for _, body := range []string{``, `{`, `{"name":"a","x":1}`, `{"name":"a"}]`, `[]`} {
		for _, path := range []string{"/v1/scopes", "/v1/vms", "/v1/campaigns", "/v1/chaos", "/v1/events/EVT-0001/resolve"} {
			env.request(t, "POST", path, testToken, body)
		}
	}
	for _, body := range []string{`{}`, `{"action":"finish"}`, `{"action":"Complete"}`, `{"action":null}`} {
		env.request(t, "POST", "/v1/events/EVT-0001/resolve", testToken, body)
	}
	for _, body := range []string{`{"notice":"-1s"}`, `{"notice":"soon"}`, `{"notice":7}`, `{"days":7}`} {
		env.request(t, "POST", "/v1/vms/web-0/degrade", testToken, body)
	}
	if calls := env.fleet.calls(); calls != 0 {
		t.Errorf("the fleet saw %d calls for bad bodies", calls)
	}
}

func TestMethodNotAllowedHeader(t *testing.T) {
	env := mustStart(t)
	a := env.request(t, "PATCH", "/v1/vms", testToken, "")
	if a.status != http.StatusMethodNotAllowed {
		t.Fatalf("PATCH /v1/vms = %d, want 405", a.status)
	}
	allow := a.header.Get("Allow")
	for _, m := range []string{"GET", "POST"} {
		if !strings.Contains(allow, m) {
			t.Errorf("Allow = %q, want it to list %s", allow, m)
		}
	}
}

// TestJSONBodyWithCharset accepts a JSON body whose type names its charset.
func TestJSONBodyWithCharset(t *testing.T) {
	env := mustStart(t)
	a := env.request(t, "POST", "/v1/scopes", testToken, `{"name":"web"}`,
		"Content-Type", "application/json; charset=utf-8")
	if a.status != http.StatusCreated {
		t.Errorf("POST with charset = %d %s, want 201", a.status, a.body)
	}
}

func excerpt(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}
