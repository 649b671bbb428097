package admin_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
)

// TestClientFollowsPages: without a limit, the client follows the Links
// from page to page and returns every VM or event the query selects.
func TestClientFollowsPages(t *testing.T) {
	t.Parallel()
	env := mustStartEnabled(t)
	env.mustMakeFleet(t)
	events := env.mustMakeEvents(t)
	admin.SetPageSize(env.client, 40)
	ctx := t.Context()

	before := env.requests.Load()
	all := whole(env.client.VMs(ctx, forewarn.VMQuery{}))(t)
	if !slices.Equal(names(all), names(env.vms)) {
		t.Fatalf("VMs:\n got %v\nwant %v", names(all), names(env.vms))
	}
	if n := env.requests.Load() - before; n != 8 { // 305 VMs, 40 a page
		t.Errorf("listing 305 VMs by 40 took %d requests, want 8", n)
	}

	spot := whole(env.client.VMs(ctx, forewarn.VMQuery{Scope: "web", Priority: "spot", After: "web-010"}))(t)
	if want := env.expectVMs("web", "", "Spot"); !slices.Equal(names(spot), want[4:]) {
		t.Errorf("Spot VMs of web after web-010:\n got %v\nwant %v", names(spot), want[4:])
	}

	admin.SetPageSize(env.client, 3)
	started := whole(env.client.Events(ctx, forewarn.EventQuery{Status: forewarn.Started}))(t)
	var want []string
	for _, e := range events {
		if e.Status == forewarn.Started {
			want = append(want, e.ID)
		}
	}
	if len(want) <= 3 || !slices.Equal(eventIDs(started), want) {
		t.Errorf("Started events:\n got %v\nwant %v (more than a page)", eventIDs(started), want)
	}
}

// TestClientOnePage: with a limit, the client returns one page and the
// cursor of the next, which leads through the rest.
func TestClientOnePage(t *testing.T) {
	t.Parallel()
	env := mustStartEnabled(t)
	env.mustMakeFleet(t)
	ctx := t.Context()
	q := forewarn.VMQuery{UpdateDomain: intPtr(1), Limit: 25}
	var got []*forewarn.VM
	for pages := 1; ; pages++ {
		before := env.requests.Load()
		page, next, err := env.client.VMs(ctx, q)
		if err != nil || len(page) > 25 || env.requests.Load()-before != 1 {
			t.Fatalf("page %d: %d VMs, %v, %d requests", pages, len(page), err, env.requests.Load()-before)
		}
		got = append(got, page...)
		if next == "" {
			break
		}
		if next != page[len(page)-1].Name {
			t.Fatalf("page %d ends with %s, next %q", pages, page[len(page)-1].Name, next)
		}
		q.After = next
	}
	if want := env.expectVMs("", "1", ""); !slices.Equal(names(got), want) {
		t.Errorf("VMs of update domain 1:\n got %v\nwant %v", names(got), want)
	}
}

// TestClientRefusesBadQueries: a query the fleet would refuse is refused
// before it is sent, and the server's refusals come back as ErrInvalid.
func TestClientRefusesBadQueries(t *testing.T) {
	t.Parallel()
	env := mustStartEnabled(t)
	ctx := t.Context()
	before := env.requests.Load()
	if _, _, err := env.client.VMs(ctx, forewarn.VMQuery{Priority: "cheap"}); !errors.Is(err, forewarn.ErrInvalid) {
		t.Errorf("priority cheap: %v", err)
	}
	if _, _, err := env.client.Events(ctx, forewarn.EventQuery{Limit: -1}); !errors.Is(err, forewarn.ErrInvalid) {
		t.Errorf("limit -1: %v", err)
	}
	if n := env.requests.Load() - before; n != 0 {
		t.Errorf("bad queries sent %d requests", n)
	}
	_, _, err := env.client.Events(ctx, forewarn.EventQuery{Limit: 20000})
	if !errors.Is(err, forewarn.ErrInvalid) || !strings.Contains(err.Error(), "from 1 to 10000") {
		t.Errorf("limit 20000: %v", err)
	}
	_, _, err = env.client.Events(ctx, forewarn.EventQuery{After: "not-a-cursor"})
	if !errors.Is(err, forewarn.ErrInvalid) || !strings.Contains(err.Error(), `invalid after "not-a-cursor"`) {
		t.Errorf("bad cursor: %v", err)
	}
}

// TestClientReadsLinks: the client finds the next page among several
// links in any of the forms RFC 8288 allows, and takes only its cursor.
func TestClientReadsLinks(t *testing.T) {
	pages := map[string]struct{ body, link string }{
		"":     {`[{"name":"a"}]`, `<https://elsewhere/v1/vms?after=x>; rel="prev", </other/prefix/v1/vms?after=a&limit=1>; rel="next"`},
		"a":    {`[{"name":"b"}]`, `</v1/vms?after=b>; title="more"; REL="last next"`},
		"b":    {`[{"name":"c"}]`, `</v1/vms?after=c>;rel=next`},
		"c":    {`[{"name":"d"}]`, `</v1/vms?after=d>; rel="prev"`},
		"bad":  {`[]`, `</v1/vms?limit=1>; rel="next"`},
		"loop": {`[{"name":"e"}]`, `</v1/vms?after=loop>; rel="next"`},
	}
	var mu sync.Mutex
	var paths []string
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		paths = append(paths, r.URL.Path+"?"+r.URL.RawQuery)
		p := pages[r.URL.Query().Get("after")]
		w.Header().Set("Link", p.link)
		w.Write([]byte(p.body))
	}))
	defer server.Close()
	c := admin.NewClient(server.URL+"/base", testToken)
	ctx := t.Context()

	vms, next, err := c.VMs(ctx, forewarn.VMQuery{Scope: "web"})
	if err != nil || next != "" || !slices.Equal(names(vms), []string{"a", "b", "c", "d"}) {
		t.Fatalf("VMs = %v, %q, %v; want a to d", names(vms), next, err)
	}
	mu.Lock()
	for _, p := range paths {
		if !strings.HasPrefix(p, "/base/v1/vms?") || !strings.Contains(p, "scope=web") {
			t.Errorf("followed to %s, want /base/v1/vms with the scope", p)
		}
	}
	mu.Unlock()
	if _, _, err := c.VMs(ctx, forewarn.VMQuery{After: "bad"}); err == nil || !strings.Contains(err.Error(), "has no after") {
		t.Errorf("a next link without a cursor: %v", err)
	}
	if _, _, err := c.VMs(ctx, forewarn.VMQuery{After: "loop"}); err == nil || !strings.Contains(err.Error(), "where the last did") {
		t.Errorf("a next page that is the same page: %v", err)
	}
}
