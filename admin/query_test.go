package admin_test

import (
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/forewarn/forewarn"
)

// get sends a GET with the token to a path with its query.
func (env *testEnv) get(tb testing.TB, path string) answer {
	tb.Helper()
	req, err := http.NewRequestWithContext(tb.Context(), "GET", env.server.URL+path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := env.server.Client().Do(req)
	if err != nil {
		tb.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: string(body)}
}

// nextLink returns the target of the Link header of a page, "" if it has
// none, failing the test unless it is exactly one `<target>; rel="next"`.
func nextLink(tb testing.TB, a answer) string {
	tb.Helper()
	links := a.header.Values("Link")
	switch {
	case len(links) == 0:
		return ""
	case len(links) > 1:
		tb.Fatalf("%d Link headers: %q", len(links), links)
	}
	target, ok := strings.CutPrefix(links[0], "<")
	if ok {
		target, ok = strings.CutSuffix(target, `>; rel="next"`)
	}
	if !ok || strings.ContainsAny(target, "<> ") {
		tb.Fatalf(`Link %q is not <target>; rel="next"`, links[0])
	}
	return target
}

// pageThrough GETs path with query, then every page its Links lead to, and
// returns the items of them all. Every page must be at most limit items,
// full if a next page follows and not empty unless it is the only one; a
// Link must lead to the same path and query, with the limit, canonical
// values (want) and after set.
func pageThrough[T any](tb testing.TB, env *testEnv, path string, query, want url.Values, limit int) []T {
	tb.Helper()
	var all []T
	target := path + "?" + query.Encode()
	for n := 1; ; n++ {
		a := env.get(tb, target)
		if a.status != http.StatusOK {
			tb.Fatalf("GET %s = %d %s", target, a.status, a.body)
		}
		var items []T
		if err := json.Unmarshal([]byte(a.body), &items); err != nil {
			tb.Fatalf("GET %s: %v", target, err)
		}
		all = append(all, items...)
		next := nextLink(tb, a)
		if len(items) > limit || n > 1 && len(items) == 0 || next != "" && len(items) != limit {
			tb.Fatalf("GET %s: page %d has %d items, limit %d, next %q", target, n, len(items), limit, next)
		}
		if next == "" {
			return all
		}
		checkNextLink(tb, next, path, want, limit)
		target = next
	}
}

// checkNextLink checks that the Link to a next page keeps the path, the
// filters and the limit, and adds a cursor.
func checkNextLink(tb testing.TB, next, path string, want url.Values, limit int) {
	tb.Helper()
	u, err := url.Parse(next)
	if err != nil || u.Path != path || u.Host != "" {
		tb.Fatalf("Link to %q, want a relative URL of %s (%v)", next, path, err)
	}
	got := u.Query()
	if got.Get("after") == "" {
		tb.Fatalf("Link to %q has no after", next)
	}
	got.Del("after")
	want = maps.Clone(want)
	want.Set("limit", strconv.Itoa(limit))
	if !maps.EqualFunc(got, want, slices.Equal) {
		tb.Fatalf("Link to %q: query %v, want %v and after", next, got, want)
	}
}

// set returns v with name set to value, or left out for "".
func withParam(v url.Values, name, value string) url.Values {
	v = maps.Clone(v)
	if value != "" {
		v.Set(name, value)
	}
	return v
}

// TestListVMsPaging pages through 305 VMs with every combination of the
// filters and three page sizes, the default among them.
func TestListVMsPaging(t *testing.T) {
	t.Parallel()
	env := mustStartEnabled(t)
	env.mustMakeFleet(t)
	canonical := map[string]string{"regular": "Regular", "SPOT": "Spot"}
	for _, scope := range []string{"", "web", "api", "BATCH", "solo-3"} {
		for _, ud := range []string{"", "0", "1", "2"} {
			for _, priority := range []string{"", "regular", "SPOT"} {
				query := withParam(withParam(withParam(url.Values{}, "scope", scope), "updateDomain", ud), "priority", priority)
				want := withParam(withParam(withParam(url.Values{}, "scope", scope), "updateDomain", ud), "priority", canonical[priority])
				expected := env.expectVMs(scope, ud, canonical[priority])
				for _, limit := range []int{7, 100, 0} {
					q, size := query, limit
					if limit == 0 {
						size = 1000 // the default
					} else {
						q = withParam(query, "limit", strconv.Itoa(limit))
					}
					got := pageThrough[*forewarn.VM](t, env, "/v1/vms", q, want, size)
					if !slices.Equal(names(got), expected) {
						t.Fatalf("GET /v1/vms?%s:\n got %v\nwant %v", q.Encode(), names(got), expected)
					}
				}
			}
		}
	}
}

// expectVMs returns the names of the VMs of the fleet that the filters
// select, in the order of the listing.
func (env *testEnv) expectVMs(scope, ud string, priority string) []string {
	var out []string
	for _, vm := range env.vms {
		if (scope == "" || strings.EqualFold(vm.Scope, scope)) &&
			(ud == "" || strconv.Itoa(vm.UpdateDomain) == ud) &&
			(priority == "" || string(vm.Priority) == priority) {
			out = append(out, vm.Name)
		}
	}
	return out
}

func names(vms []*forewarn.VM) []string {
	out := make([]string, len(vms))
	for i, vm := range vms {
		out[i] = vm.Name
	}
	return out
}

// TestListEventsPaging pages through the events in flight with every
// combination of the filters, by two and by the default page.
func TestListEventsPaging(t *testing.T) {
	t.Parallel()
	env := mustStartEnabled(t)
	env.mustMakeFleet(t)
	events := env.mustMakeEvents(t)
	types := []string{"", "freeze", "REBOOT", "Redeploy", "preempt", "terminate"}
	for _, scope := range []string{"", "web", "Batch", "cache"} {
		for _, typ := range types {
			for _, status := range []string{"", "scheduled", "STARTED"} {
				for _, source := range []string{"", "platform", "User"} {
					env.checkEventPages(t, events, map[string]string{"scope": scope, "type": typ, "status": status, "source": source})
				}
			}
		}
	}
}

// checkEventPages pages through the events the filters select.
func (env *testEnv) checkEventPages(t *testing.T, events []*forewarn.Event, filters map[string]string) {
	t.Helper()
	query, want := url.Values{}, url.Values{}
	var expected []string
	for _, e := range events {
		if matchesFilters(e, filters) {
			expected = append(expected, e.ID)
		}
	}
	for name, value := range filters {
		query = withParam(query, name, value)
		if name != "scope" {
			value = canonicalChoice(value)
		}
		want = withParam(want, name, value)
	}
	for _, limit := range []int{2, 0} {
		q, size := query, limit
		if limit == 0 {
			size = 1000
		} else {
			q = withParam(query, "limit", strconv.Itoa(limit))
		}
		got := pageThrough[*forewarn.Event](t, env, "/v1/events", q, want, size)
		if !slices.Equal(eventIDs(got), expected) {
			t.Fatalf("GET /v1/events?%s:\n got %v\nwant %v", q.Encode(), eventIDs(got), expected)
		}
	}
}

// matchesFilters says whether an event passes filters given in any case.
func matchesFilters(e *forewarn.Event, filters map[string]string) bool {
	fields := map[string]string{"scope": e.Scope, "type": string(e.Type), "status": string(e.Status), "source": string(e.Source)}
	for name, value := range filters {
		if value != "" && !strings.EqualFold(fields[name], value) {
			return false
		}
	}
	return true
}

// canonicalChoice spells a type, status or source as the API does.
func canonicalChoice(s string) string {
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + strings.ToLower(s[1:])
}

func eventIDs(events []*forewarn.Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.ID
	}
	return out
}

// TestListLimitBounds checks the smallest and largest page.
func TestListLimitBounds(t *testing.T) {
	t.Parallel()
	env := mustStartEnabled(t)
	env.mustMakeFleet(t)
	a := env.get(t, "/v1/vms?limit=1")
	var one []*forewarn.VM
	if err := json.Unmarshal([]byte(a.body), &one); err != nil || len(one) != 1 || one[0].Name != env.vms[0].Name {
		t.Fatalf("limit=1: %d %s (%v)", a.status, a.body, err)
	}
	if next := nextLink(t, a); next != "/v1/vms?after="+env.vms[0].Name+"&limit=1" {
		t.Errorf("limit=1: Link to %q", next)
	}
	a = env.get(t, "/v1/vms?limit=10000")
	var all []*forewarn.VM
	if err := json.Unmarshal([]byte(a.body), &all); err != nil || len(all) != len(env.vms) || nextLink(t, a) != "" {
		t.Errorf("limit=10000: %d VMs, Link %q (%v); want %d and none", len(all), a.header.Get("Link"), err, len(env.vms))
	}
}

// TestListBadQueries checks that every bad parameter is refused with a
// message that names it and says what it takes.
func TestListBadQueries(t *testing.T) {
	t.Parallel()
	env := mustStartEnabled(t)
	env.mustMakeFleet(t)
	limitMsg := "query parameter limit must be a whole number from 1 to 10000, not "
	for _, tc := range []struct {
		path   string
		status int
		says   string
	}{
		{"/v1/vms?limit=0", 400, limitMsg + `"0"`},
		{"/v1/vms?limit=10001", 400, limitMsg + `"10001"`},
		{"/v1/vms?limit=-1", 400, limitMsg + `"-1"`},
		{"/v1/vms?limit=ten", 400, limitMsg + `"ten"`},
		{"/v1/vms?limit=1.5", 400, limitMsg + `"1.5"`},
		{"/v1/vms?limit=", 400, limitMsg + `""`},
		{"/v1/events?limit=20000", 400, limitMsg + `"20000"`},
		{"/v1/vms?updateDomain=-1", 400, `query parameter updateDomain must be a whole number from 0 to 19, not "-1"`},
		{"/v1/vms?updateDomain=20", 400, `updateDomain must be a whole number from 0 to 19, not "20"`},
		{"/v1/vms?updateDomain=one", 400, `updateDomain must be a whole number from 0 to 19, not "one"`},
		{"/v1/vms?priority=cheap", 400, `query parameter priority must be Regular or Spot, not "cheap"`},
		{"/v1/vms?priority=", 400, `query parameter priority must be Regular or Spot, not ""`},
		{"/v1/vms?after=web%2F1", 400, `invalid after "web/1"`},
		{"/v1/vms?type=Reboot", 400, `unknown query parameter "type": this route takes scope, updateDomain, priority, after, limit`},
		{"/v1/vms?scope=web&scope=db", 400, `query parameter "scope" is given 2 times`},
		{"/v1/vms?scope=nope", 404, `"nope"`},
		{"/v1/events?type=Explode", 400, `query parameter type must be Freeze, Reboot, Redeploy, Preempt or Terminate, not "Explode"`},
		{"/v1/events?status=Completed", 400, `query parameter status must be Scheduled or Started, not "Completed"`},
		{"/v1/events?source=Me", 400, `query parameter source must be Platform or User, not "Me"`},
		{"/v1/events?after=web-001", 400, `invalid after "web-001"`},
		{"/v1/events?updateDomain=1", 400, `unknown query parameter "updateDomain": this route takes scope, type, status, source, after, limit`},
		{"/v1/events?scope=nope", 404, `"nope"`},
	} {
		a := env.get(t, tc.path)
		if a.status != tc.status || !strings.Contains(a.errorMessage(t), tc.says) {
			t.Errorf("GET %s = %d %s; want %d saying %s", tc.path, a.status, a.body, tc.status, tc.says)
		}
	}
}

// TestListQueryReachesFleet checks the query the fleet gets: canonical
// values, the default limit, and the cursor as it was given.
func TestListQueryReachesFleet(t *testing.T) {
	env := mustStart(t)
	env.request(t, "GET", "/v1/vms", testToken, "")
	env.request(t, "GET", "/v1/vms?scope=Web&updateDomain=0&priority=spot&after=web-1&limit=5", testToken, "")
	env.request(t, "GET", "/v1/events", testToken, "")
	env.request(t, "GET", "/v1/events?scope=web&type=reboot&status=STARTED&source=platform&after=Zm9v&limit=10000", testToken, "")
	zero := 0
	wantVMs := []forewarn.VMQuery{
		{Limit: 1000},
		{Scope: "Web", UpdateDomain: &zero, Priority: forewarn.Spot, After: "web-1", Limit: 5},
	}
	wantEvents := []forewarn.EventQuery{
		{Limit: 1000},
		{Scope: "web", Type: forewarn.Reboot, Status: forewarn.Started, Source: forewarn.Platform, After: "Zm9v", Limit: 10000},
	}
	vmQueries, eventQueries := env.fleet.queries()
	same(t, "VM queries", vmQueries, wantVMs)
	same(t, "event queries", eventQueries, wantEvents)
}
