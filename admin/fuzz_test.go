package admin_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/internal/fabrictest"
)

// FuzzCreateBodies sends arbitrary bodies to the routes that require one.
// A body is either refused with a 4xx JSON error that reaches no fleet
// method, or it is a JSON object and reaches the fleet.
func FuzzCreateBodies(f *testing.F) {
	for _, seed := range []string{
		`{"name":"web"}`, `{"name":"web","kind":"scale-set","updateDomains":3,"terminateNotice":"7d"}`,
		`{"name":"vm","scope":"web","updateDomain":1,"faultDomain":null,"addresses":["10.0.0.1"],"priority":"Spot"}`,
		``, ` `, `null`, `[]`, `{`, `{"name":1}`, `{"nope":1}`, `{"name":"a"}x`, `{"name":"a"} {}`,
		`{"terminateNotice":"-5m"}`, `{"updateDomain":1e400}`, "{\"name\":\"\xff\"}", `{"NAME":"a"}`,
		`{"type":"Reboot","scopes":["web"],"notice":"1h","parallelScopes":2}`, `{"action":"retry"}`,
		`{"action":"finish"}`, `{"scope":"web","status":410,"fraction":0.5,"for":"1h"}`, `{"fraction":"1"}`,
	} {
		f.Add([]byte(seed))
	}
	fleet := &spyFleet{Fleet: fabrictest.New(f, fabric.Config{})}
	fleet.fail(errors.New("reached the fleet")) // count calls, change nothing
	server := admin.NewServer(admin.Config{Fleet: fleet, Token: testToken})
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, path := range []string{"/v1/scopes", "/v1/vms", "/v1/campaigns", "/v1/chaos", "/v1/events/EVT-0001/resolve"} {
			callsBefore := fleet.calls()
			req := httptest.NewRequest("POST", path, bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+testToken)
			rec := httptest.NewRecorder()
			server.ServeHTTP(rec, req)
			checkFuzzAnswer(t, path, body, rec, fleet.calls() > callsBefore)
		}
	})
}

// checkFuzzAnswer checks one answer of FuzzCreateBodies.
func checkFuzzAnswer(t *testing.T, path string, body []byte, rec *httptest.ResponseRecorder, reached bool) {
	t.Helper()
	var answer struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil || answer.Error == "" {
		t.Fatalf("POST %s %q: answer %d %q is not a JSON error", path, body, rec.Code, rec.Body)
	}
	if reached {
		if rec.Code != http.StatusInternalServerError {
			t.Fatalf("POST %s %q reached the fleet but answered %d", path, body, rec.Code)
		}
		if !json.Valid(body) || bytes.TrimLeft(body, " \t\r\n")[0] != '{' {
			t.Fatalf("POST %s %q reached the fleet with a body that is not a JSON object", path, body)
		}
		return
	}
	if rec.Code < 400 || rec.Code >= 500 || answer.Error == forewarn.ErrorMessage(errors.New("")) {
		t.Fatalf("POST %s %q refused with %d %q, want a 4xx that says why", path, body, rec.Code, answer.Error)
	}
}

// FuzzListQueries sends arbitrary query strings to the listings. A query is
// either refused with a 400 that names what was wrong, before it reaches
// the fleet, or it reaches the fleet as a query the fleet accepts, with a
// page of 1 to 10,000.
func FuzzListQueries(f *testing.F) {
	for _, seed := range []string{
		"", "scope=web", "limit=5&after=web-1", "updateDomain=0&priority=spot", "priority=SPOT&limit=10000",
		"type=reboot&status=started&source=USER", "limit=0", "limit=10001", "limit=-1", "updateDomain=x",
		"priority=", "type=Completed", "%zz", "scope=a&scope=b", "after=%00", "limit=1e3", "nope=1",
	} {
		f.Add(seed)
	}
	fleet := &spyFleet{Fleet: fabrictest.New(f, fabric.Config{})}
	fleet.fail(errors.New("reached the fleet"))
	server := admin.NewServer(admin.Config{Fleet: fleet, Token: testToken})
	f.Fuzz(func(t *testing.T, query string) {
		for _, path := range []string{"/v1/vms", "/v1/events"} {
			before := fleet.calls()
			req := httptest.NewRequest("GET", "/", nil)
			req.URL.Path, req.URL.RawQuery = path, query
			req.Header.Set("Authorization", "Bearer "+testToken)
			rec := httptest.NewRecorder()
			server.ServeHTTP(rec, req)
			checkListAnswer(t, fleet, path+"?"+query, rec, fleet.calls() > before)
		}
	})
}

// checkListAnswer checks one answer of FuzzListQueries.
func checkListAnswer(t *testing.T, fleet *spyFleet, target string, rec *httptest.ResponseRecorder, reached bool) {
	t.Helper()
	if !reached {
		if rec.Code != http.StatusBadRequest || !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("GET %s refused with %d %q, want a 400 JSON error", target, rec.Code, rec.Body)
		}
		return
	}
	var err error
	var limit int
	vmQueries, eventQueries := fleet.queries()
	if strings.HasPrefix(target, "/v1/vms") {
		q := vmQueries[len(vmQueries)-1]
		err, limit = q.Check(), q.Limit
	} else {
		q := eventQueries[len(eventQueries)-1]
		err, limit = q.Check(), q.Limit
	}
	if err != nil || limit < 1 || limit > admin.MaxListLimit {
		t.Fatalf("GET %s reached the fleet with limit %d, a query it refuses: %v", target, limit, err)
	}
}
