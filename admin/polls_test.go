package admin_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jonboulle/clockwork"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/imds"
	"github.com/forewarn/forewarn/internal/fabrictest"
)

// pollsEnv is the admin API with the poll record of a real metadata
// endpoint, both fed by a real control plane.
type pollsEnv struct {
	fab      *fabric.Fabric
	endpoint *imds.Server
	client   *admin.Client
}

func mustStartPolls(tb testing.TB) *pollsEnv {
	tb.Helper()
	clock := clockwork.NewFakeClockAt(fabrictest.T0)
	fab := fabrictest.New(tb, fabric.Config{Clock: clock, AlwaysEnabled: true})
	endpoint := imds.New(imds.Config{Metadata: fab.Metadata(), Clock: clock})
	if err := fab.PublishTo(tb.Context(), endpoint); err != nil {
		tb.Fatalf("publish to the endpoint: %v", err)
	}
	api := admin.NewServer(admin.Config{Fleet: fab, Token: testToken, Polls: endpoint})
	srv := httptest.NewServer(api)
	tb.Cleanup(srv.Close)
	return &pollsEnv{fab: fab, endpoint: endpoint, client: admin.NewClient(srv.URL, testToken)}
}

// poll has the VM at addr GET its events from the endpoint.
func (env *pollsEnv) poll(tb testing.TB, addr string) {
	tb.Helper()
	r := httptest.NewRequest(http.MethodGet, "/metadata/scheduledevents?api-version=2020-07-01", nil)
	r.RemoteAddr = addr + ":40000"
	r.Header.Set("Metadata", "true")
	w := httptest.NewRecorder()
	env.endpoint.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		tb.Fatalf("GET from %s: %d %s", addr, w.Code, w.Body)
	}
}

func TestPollsRoundTrip(t *testing.T) {
	env := mustStartPolls(t)
	ctx := t.Context()
	if _, err := env.fab.CreateScope(ctx, forewarn.ScopeSpec{Name: "web", Kind: forewarn.AvailabilitySet}); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []forewarn.VMSpec{
		{Name: "web-1", Scope: "web", Addresses: []string{"10.0.0.5"}},
		{Name: "web-0", Scope: "web", Addresses: []string{"10.0.0.4"}},
	} {
		if _, err := env.fab.CreateVM(ctx, spec); err != nil {
			t.Fatal(err)
		}
	}
	ev, err := env.fab.Operate(ctx, "web-0", forewarn.OpRestart)
	if err != nil {
		t.Fatal(err)
	}
	env.poll(t, "10.0.0.4")
	env.poll(t, "10.0.0.4")

	polls, err := env.client.Polls(ctx, "WEB")
	if err != nil {
		t.Fatalf("Polls: %v", err)
	}
	if len(polls) != 2 || polls[0].VM != "web-0" || polls[1].VM != "web-1" {
		t.Fatalf("polls %+v, want web-0 and web-1", polls)
	}
	p := polls[0]
	if p.Scope != "web" || p.Polls != 2 || !p.FirstPoll.Equal(fabrictest.T0) || !p.LastPoll.Equal(fabrictest.T0) {
		t.Errorf("web-0: %+v", p)
	}
	if len(p.Seen) != 1 || p.Seen[0].Event != strings.ToLower(ev.ID) || !p.Seen[0].At.Equal(fabrictest.T0) {
		t.Errorf("web-0 seen %+v, want %s at %v", p.Seen, ev.ID, fabrictest.T0)
	}
	if q := polls[1]; q.Polls != 0 || !q.FirstPoll.IsZero() || q.Seen != nil {
		t.Errorf("web-1 never polled: %+v", q)
	}
}

func TestPollsNotFound(t *testing.T) {
	env := mustStartPolls(t)
	if _, err := env.client.Polls(t.Context(), "nowhere"); admin.StatusCode(err) != http.StatusNotFound {
		t.Errorf("Polls of an unknown scope: %v, want a 404", err)
	}

	noEndpoint := mustStart(t) // an admin API without Config.Polls
	if _, err := noEndpoint.fab.CreateScope(t.Context(), forewarn.ScopeSpec{Name: "web"}); err != nil {
		t.Fatal(err)
	}
	_, err := noEndpoint.client.Polls(t.Context(), "web")
	if admin.StatusCode(err) != http.StatusNotFound || !strings.Contains(err.Error(), "does not serve the metadata endpoint") {
		t.Errorf("Polls without an endpoint: %v, want a 404 that says why", err)
	}
}
