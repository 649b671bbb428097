package client

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// newTestClient returns a client of f with fast retries.
func newTestClient(tb testing.TB, f *fakeIMDS, opts ...Option) *Client {
	tb.Helper()
	opts = append([]Option{WithEndpoint(f.URL()), WithRetry(5, time.Millisecond)}, opts...)
	return New(opts...)
}

// testContext is a context that ends with the test or after waitTimeout.
func testContext(tb testing.TB) context.Context {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	tb.Cleanup(cancel)
	return ctx
}

func TestGetRequestShape(t *testing.T) {
	f := newFake(t, false)
	f.setEvents(`{"EventId":"a","EventType":"Freeze","Resources":["web-0"],"EventStatus":"Scheduled","NotBefore":"Mon, 19 Sep 2016 18:29:47 GMT"}`)
	doc, err := newTestClient(t, f).Get(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	if doc.DocumentIncarnation != 2 || doc.ETag != `"2"` || doc.LongPoll || len(doc.Events) != 1 {
		t.Errorf("document = %+v", doc)
	}
	reqs := f.recorded()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Method != "GET" || r.Path != "/metadata/scheduledevents" || r.Header.Get("Metadata") != "true" {
		t.Errorf("request %s %s Metadata=%q", r.Method, r.Path, r.Header.Get("Metadata"))
	}
	if len(r.Query) != 1 || r.Query["api-version"][0] != DefaultAPIVersion {
		t.Errorf("query %v, want api-version=%s alone", r.Query, DefaultAPIVersion)
	}
	if r.Header.Get("If-None-Match") != "" {
		t.Errorf("Get sent If-None-Match %q", r.Header.Get("If-None-Match"))
	}
}

func TestGetLongPollFlagAndAPIVersion(t *testing.T) {
	f := newFake(t, true)
	doc, err := newTestClient(t, f, WithAPIVersion("2019-01-01")).Get(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	if !doc.LongPoll {
		t.Error("LongPoll not set from Forewarn-Long-Poll: true")
	}
	if got := f.recorded()[0].Query["api-version"][0]; got != "2019-01-01" {
		t.Errorf("api-version %q", got)
	}
}

func TestApproveRequestShape(t *testing.T) {
	f := newFake(t, false)
	f.bump() // incarnation 2
	c := newTestClient(t, f)
	ctx := testContext(t)
	if _, err := c.Get(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Approve(ctx, "f020ba2e-3bc0-4c40-a10b-86575a9eabd5", "b"); err != nil {
		t.Fatal(err)
	}
	reqs := f.recorded()
	post := reqs[len(reqs)-1]
	if post.Method != "POST" || post.Path != scheduledEventsPath || post.Header.Get("Metadata") != "true" ||
		post.Query["api-version"][0] != DefaultAPIVersion || post.Header.Get("Content-Type") != "application/json" {
		t.Errorf("request %+v", post)
	}
	const want = `{"StartRequests":[{"EventId":"f020ba2e-3bc0-4c40-a10b-86575a9eabd5"},{"EventId":"b"}],"DocumentIncarnation":2}`
	if post.Body != want {
		t.Errorf("body %s\nwant %s", post.Body, want)
	}
}

func TestApproveReadsIncarnationFirst(t *testing.T) {
	f := newFake(t, false)
	f.bump()
	f.bump() // incarnation 3
	if err := newTestClient(t, f).Approve(testContext(t), "a"); err != nil {
		t.Fatal(err)
	}
	reqs := f.recorded()
	if len(reqs) != 2 || reqs[0].Method != "GET" || reqs[1].Method != "POST" {
		t.Fatalf("requests %+v, want GET then POST", reqs)
	}
	var body struct{ DocumentIncarnation int }
	if err := json.Unmarshal([]byte(reqs[1].Body), &body); err != nil || body.DocumentIncarnation != 3 {
		t.Errorf("body %s: DocumentIncarnation want 3", reqs[1].Body)
	}
}

func TestApproveRefusesBadInput(t *testing.T) {
	f := newFake(t, false)
	c := newTestClient(t, f)
	for _, ids := range [][]string{nil, {""}, {"a", "  "}} {
		if err := c.Approve(testContext(t), ids...); err == nil {
			t.Errorf("Approve(%q): no error", ids)
		}
	}
	if n := len(f.recorded()); n != 0 {
		t.Errorf("%d requests sent for bad input", n)
	}
}

func TestInstance(t *testing.T) {
	f := newFake(t, false)
	got, err := newTestClient(t, f).Instance(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	want := Compute{
		Name:                 "web-0",
		VMID:                 "02aab8a4-74ef-476e-8182-f6d2ba4166a6",
		Location:             "westeurope",
		PlatformUpdateDomain: 3,
		PlatformFaultDomain:  1,
		Zone:                 "2",
		Priority:             "Spot",
		ResourceID:           "/subscriptions/x/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/web-0",
		Tags:                 "env:prod;team:web",
		OSProfile:            OSProfile{ComputerName: "web-0-host"},
	}
	if *got != want {
		t.Errorf("Instance = %+v\nwant %+v", *got, want)
	}
	r := f.recorded()[0]
	if r.Path != "/metadata/instance/compute" || r.Query["api-version"][0] != "2021-02-01" || r.Header.Get("Metadata") != "true" {
		t.Errorf("request %+v", r)
	}
	if tags := got.TagMap(); len(tags) != 2 || tags["env"] != "prod" || tags["team"] != "web" {
		t.Errorf("TagMap = %v", tags)
	}
}

func TestComputeDomainsEmptyOrNumbers(t *testing.T) {
	var c Compute
	if err := json.Unmarshal([]byte(`{"name":"a","platformUpdateDomain":"","platformFaultDomain":2}`), &c); err != nil {
		t.Fatal(err)
	}
	if c.Name != "a" || c.PlatformUpdateDomain != 0 || c.PlatformFaultDomain != 2 {
		t.Errorf("decoded %+v", c)
	}
	if (Compute{}).TagMap() != nil {
		t.Error("TagMap of no tags is not nil")
	}
}

func TestEndpointResolution(t *testing.T) {
	t.Setenv(EndpointEnv, "")
	if got := New().Endpoint(); got != DefaultEndpoint {
		t.Errorf("default endpoint %q", got)
	}
	t.Setenv(EndpointEnv, "127.0.0.1:8169/")
	if got := New().Endpoint(); got != "http://127.0.0.1:8169" {
		t.Errorf("endpoint from env %q", got)
	}
	if got := New(WithEndpoint("http://10.0.0.1:80")).Endpoint(); got != "http://10.0.0.1:80" {
		t.Errorf("WithEndpoint beaten by env: %q", got)
	}
}

func TestInvalidEndpoint(t *testing.T) {
	for _, ep := range []string{"ftp://x", "http://", "http://a b:%zz", ":#", "http://:8169"} {
		_, err := New(WithEndpoint(ep), WithRetry(5, time.Millisecond)).Get(testContext(t))
		if !errors.Is(err, ErrInvalidEndpoint) {
			t.Errorf("endpoint %q: err = %v, want ErrInvalidEndpoint", ep, err)
		}
	}
}

func TestFirstReadGetsLongTimeout(t *testing.T) {
	f := newFake(t, false)
	c := newTestClient(t, f, WithTimeouts(time.Hour, time.Second))
	if got := c.readTimeout(); got != time.Hour {
		t.Errorf("first read timeout %v, want 1h", got)
	}
	if _, err := c.Instance(testContext(t)); err != nil {
		t.Fatal(err)
	}
	if got := c.readTimeout(); got != time.Hour {
		t.Errorf("instance metadata ended the first-read timeout: %v", got)
	}
	if _, err := c.Get(testContext(t)); err != nil {
		t.Fatal(err)
	}
	if got := c.readTimeout(); got != time.Second {
		t.Errorf("later read timeout %v, want 1s", got)
	}
}

func TestMalformedDocumentIsNotRetried(t *testing.T) {
	f := newFake(t, false)
	f.setEvents(`{"EventId":"x","NotBefore":"soon"}`)
	_, err := newTestClient(t, f).Get(testContext(t))
	if !errors.Is(err, ErrMalformedResponse) || !strings.Contains(err.Error(), "soon") {
		t.Errorf("err = %v, want ErrMalformedResponse naming the value", err)
	}
	if n := len(f.recorded()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}
