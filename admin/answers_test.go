package admin_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
)

// TestErrorsHaveCodes checks that every error answer is
// {"error","code"}: 405 with method_not_allowed, 500 with internal, and
// the sentinels' codes.
func TestErrorsHaveCodes(t *testing.T) {
	env := mustStart(t)
	for _, tc := range []struct {
		method, path, token string
		status              int
		code                string
	}{
		{"PUT", "/v1/scopes", testToken, 405, "method_not_allowed"},
		{"GET", "/v1/vms/web-0/restart", testToken, 405, "method_not_allowed"},
		{"DELETE", "/v1/status", testToken, 405, "method_not_allowed"},
		{"GET", "/v1/nodes", testToken, 404, "not_found"},
		{"GET", "/v1/history?limit=0", testToken, 400, "invalid"},
		{"GET", "/v1/scopes", "", 401, "unauthorized"},
	} {
		a := env.request(t, tc.method, tc.path, tc.token, "")
		if a.status != tc.status || codeOf(t, a) != tc.code {
			t.Errorf("%s %s = %d %s, want %d with code %q", tc.method, tc.path, a.status, a.body, tc.status, tc.code)
		}
	}

	env.store.fail(errors.New("disk on fire"))
	if a := env.request(t, "GET", "/v1/scopes", testToken, ""); a.status != 500 || codeOf(t, a) != "internal" {
		t.Errorf("a failure of the fleet = %d %s, want 500 with code internal", a.status, a.body)
	}
}

// codeOf returns the code of a JSON error answer.
func codeOf(t *testing.T, a answer) string {
	t.Helper()
	_, code := errorCode(t, a)
	return code
}

// TestRootRedirectsToDashboard checks that the admin listener's root leads
// to the dashboard, and only the root.
func TestRootRedirectsToDashboard(t *testing.T) {
	env := mustStart(t)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(env.server.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/ui/" {
		t.Errorf("GET / = %d to %q, want 302 to /ui/", resp.StatusCode, resp.Header.Get("Location"))
	}
	if a := env.request(t, "GET", "/nothing", "", ""); a.status != 404 {
		t.Errorf("GET /nothing = %d, want 404", a.status)
	}
}

// TestClientNotAdminAPI checks what the client says of a server that
// answers the API's paths with a 404 of its own, as the metadata listener
// does.
func TestClientNotAdminAPI(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":"Not found"}`)
	}))
	t.Cleanup(srv.Close)
	_, err := admin.NewClient(srv.URL, testToken).Scopes(t.Context())
	if !errors.Is(err, admin.ErrNotAdminAPI) || errors.Is(err, forewarn.ErrNotFound) ||
		!strings.Contains(err.Error(), "GET /v1/scopes") || !strings.Contains(err.Error(), `"Not found"`) {
		t.Errorf("Scopes from a server that is not the admin API: %v", err)
	}
}

// TestSteerCampaignIdempotent steers a campaign of the real control plane
// twice in each way: the second answers 200 with the campaign as it is;
// pausing or resuming a cancelled campaign is a 409 that says why.
func TestSteerCampaignIdempotent(t *testing.T) {
	env := mustStartEnabled(t)
	ctx, c := t.Context(), env.client
	must(c.CreateScope(ctx, forewarn.ScopeSpec{Name: "web", UpdateDomains: 2}))(t)
	must(c.CreateVM(ctx, forewarn.VMSpec{Name: "web-0", Scope: "web"}))(t)
	camp := must(c.StartCampaign(ctx, forewarn.CampaignSpec{Type: forewarn.Reboot, Scopes: []string{"web"}}))(t)

	for _, step := range []struct {
		action forewarn.CampaignAction
		state  forewarn.CampaignState
	}{
		{forewarn.PauseCampaign, forewarn.CampaignPaused},
		{forewarn.PauseCampaign, forewarn.CampaignPaused},
		{forewarn.ResumeCampaign, forewarn.CampaignRunning},
		{forewarn.ResumeCampaign, forewarn.CampaignRunning},
		{forewarn.CancelCampaign, forewarn.CampaignCancelled},
		{forewarn.CancelCampaign, forewarn.CampaignCancelled},
	} {
		path := "/v1/campaigns/" + camp.ID + "/" + string(step.action)
		a := env.request(t, "POST", path, testToken, "")
		var got forewarn.Campaign
		if a.status != http.StatusOK || json.Unmarshal([]byte(a.body), &got) != nil || got.State != step.state {
			t.Errorf("POST %s = %d %s, want 200 with state %s", path, a.status, a.body, step.state)
		}
	}
	cancelled := must(c.Campaign(ctx, camp.ID))(t)
	for _, action := range []string{"pause", "resume"} {
		a := env.request(t, "POST", "/v1/campaigns/"+camp.ID+"/"+action, testToken, "")
		if a.status != http.StatusConflict || codeOf(t, a) != "conflict" ||
			!strings.Contains(a.errorMessage(t), "is cancelled: an ended campaign cannot be "+action+"d") {
			t.Errorf("%s of a cancelled campaign = %d %s, want 409 that says why", action, a.status, a.body)
		}
	}
	if again := must(c.Campaign(ctx, camp.ID))(t); !again.EndedAt.Equal(cancelled.EndedAt) || again.State != forewarn.CampaignCancelled {
		t.Errorf("the refused steering changed the campaign: %+v", again)
	}
}

// TestHistoryPages pages through the history of the real control plane,
// newest first, with the API's Link and with the client.
func TestHistoryPages(t *testing.T) {
	env := mustStartEnabled(t)
	ctx, f := t.Context(), env.fab
	must(f.CreateScope(ctx, forewarn.ScopeSpec{Name: "web"}))(t)
	var ended []string // newest first
	for i := range 5 {
		must(f.CreateVM(ctx, forewarn.VMSpec{Name: fmt.Sprintf("web-%d", i), Scope: "web"}))(t)
		e := must(f.Operate(ctx, fmt.Sprintf("web-%d", i), forewarn.OpRestart))(t)
		must(f.Cancel(ctx, e.ID))(t)
		ended = append([]string{e.ID}, ended...)
	}

	a := env.request(t, "GET", "/v1/history?limit=2", testToken, "")
	link := a.header.Get("Link")
	if a.status != 200 || !strings.HasPrefix(link, "</v1/history?after=") || !strings.HasSuffix(link, `&limit=2>; rel="next"`) {
		t.Fatalf("GET /v1/history?limit=2 = %d, Link %q", a.status, link)
	}
	var got []string
	after := ""
	for range 5 {
		page, next := whole2(env.client.HistoryPage(ctx, forewarn.HistoryQuery{After: after, Limit: 2}))(t)
		for _, e := range page {
			got = append(got, e.ID)
		}
		if after = next; after == "" {
			break
		}
	}
	if !slices.Equal(got, ended) {
		t.Errorf("history by pages of 2 = %q, want %q", got, ended)
	}
	all, next := whole2(env.client.HistoryPage(ctx, forewarn.HistoryQuery{}))(t)
	if next != "" || len(all) != 5 || all[0].ID != ended[0] || all[4].ID != ended[4] {
		t.Errorf("the whole history = %d events, next %q", len(all), next)
	}
	if a := env.request(t, "GET", "/v1/history?after="+url.QueryEscape("not a cursor"), testToken, ""); a.status != 400 {
		t.Errorf("a bad cursor = %d %s, want 400", a.status, a.body)
	}
	if a := env.request(t, "GET", "/v1/history?limit=100&after=x&scope=web", testToken, ""); a.status != 400 ||
		!strings.Contains(a.errorMessage(t), "this route takes after, limit") {
		t.Errorf("an unknown parameter = %d %s", a.status, a.body)
	}
}

// whole2 is must for a page and its next cursor.
func whole2[T any](v T, next string, err error) func(testing.TB) (T, string) {
	return func(tb testing.TB) (T, string) {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
		return v, next
	}
}
