package admin_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/internal/fabrictest"
)

// streamWait is how long a change may take to reach the stream: the
// contract says about 100 ms; the rest is for a loaded machine under
// -race.
const streamWait = 2 * time.Second

// streamEnv is the admin API with a live stream over the real control
// plane: an in-memory store, a fake clock, every scope enabled, and a Hub
// the fabric publishes to.
type streamEnv struct {
	fab    *fabric.Fabric
	hub    *admin.Hub
	api    *admin.Server
	server *httptest.Server
	client *admin.Client
}

// mustStartStream starts a streamEnv and closes it when the test ends.
func mustStartStream(t *testing.T) *streamEnv {
	t.Helper()
	return mustStartStreamWith(t, fabric.Config{AlwaysEnabled: true})
}

// mustStartStreamWith starts a streamEnv whose fabric has cfg, over a new
// in-memory store and a fake clock unless cfg has them.
func mustStartStreamWith(t *testing.T, cfg fabric.Config) *streamEnv {
	t.Helper()
	env := &streamEnv{hub: admin.NewHub(), fab: fabrictest.New(t, cfg)}
	if err := env.fab.PublishTo(t.Context(), env.hub); err != nil {
		t.Fatal(err)
	}
	env.api = admin.NewServer(admin.Config{Fleet: env.fab, Token: testToken, Hub: env.hub,
		Replica: "host-123", Version: "v1.2.3-test", Logger: testLogger(t)})
	env.server = httptest.NewServer(env.api)
	t.Cleanup(env.server.Close)
	env.client = admin.NewClient(env.server.URL, testToken)
	return env
}

// mustMakeStreamFleet makes the scopes web (2 update domains, 4 VMs, a
// Scheduled Restart of web-1), api (2 VMs, walked by a Freeze campaign)
// and empty (no VM).
func (env *streamEnv) mustMakeStreamFleet(t *testing.T) {
	t.Helper()
	ctx, f := t.Context(), env.fab
	must(f.CreateScope(ctx, forewarn.ScopeSpec{Name: "web", UpdateDomains: 2}))(t)
	must(f.CreateScope(ctx, forewarn.ScopeSpec{Name: "api", UpdateDomains: 2}))(t)
	must(f.CreateScope(ctx, forewarn.ScopeSpec{Name: "empty"}))(t)
	for i := range 4 {
		must(f.CreateVM(ctx, forewarn.VMSpec{Name: fmt.Sprintf("web-%d", i), Scope: "web"}))(t)
	}
	for i := range 2 {
		must(f.CreateVM(ctx, forewarn.VMSpec{Name: fmt.Sprintf("api-%d", i), Scope: "api"}))(t)
	}
	must(f.Operate(ctx, "web-1", forewarn.OpRestart))(t)
	must(f.StartCampaign(ctx, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: []string{"api"}}))(t)
}

// sseEvent is one event of a stream.
type sseEvent struct {
	name string
	data string
}

// sseStream reads a stream in the background.
type sseStream struct {
	resp   *http.Response
	events chan sseEvent
	cancel context.CancelFunc
	// quit tells read to stop handing events over.
	quit chan struct{}
	// ended is closed once the body has ended; err is why.
	ended chan struct{}
	err   error
}

// openStream opens GET /v1/stream with the bearer token, unless header
// names other credentials, and checks it is a stream.
func openStream(t *testing.T, base string, header ...string) *sseStream {
	t.Helper()
	if len(header) == 0 {
		header = []string{"Authorization", "Bearer " + testToken}
	}
	resp, cancel := getStream(t, base+"/v1/stream", header...)
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		t.Fatalf("GET /v1/stream = %d %s, want 200", resp.StatusCode, b)
	}
	for name, want := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-store"} {
		if got := resp.Header.Get(name); got != want {
			t.Errorf("stream %s = %q, want %q", name, got, want)
		}
	}
	s := &sseStream{resp: resp, events: make(chan sseEvent, 1000), cancel: cancel,
		quit: make(chan struct{}), ended: make(chan struct{})}
	go s.read()
	t.Cleanup(s.close)
	return s
}

// getStream sends GET with the headers and returns the answer and what
// ends the request.
func getStream(t *testing.T, target string, header ...string) (*http.Response, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", target, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("GET %s: %v", target, err)
	}
	return resp, cancel
}

// read parses the body into events until it ends. Each event must be an
// "event:" line, one "data:" line and a blank line, as the server writes
// them.
func (s *sseStream) read() {
	defer close(s.ended)
	defer close(s.events)
	r := bufio.NewReader(s.resp.Body)
	var ev sseEvent
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			s.err = err
			return
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if ev.name == "" {
				s.err = fmt.Errorf("event without a name (data %q)", ev.data)
				return
			}
			select {
			case s.events <- ev:
			case <-s.quit:
				s.err = context.Canceled
				return
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if ev.data != "" {
				s.err = fmt.Errorf("event %s has two data lines", ev.name)
				return
			}
			ev.data = strings.TrimPrefix(line, "data: ")
		default:
			s.err = fmt.Errorf("unexpected line %q", line)
			return
		}
	}
}

// close goes away as a browser tab that closes does.
func (s *sseStream) close() {
	select {
	case <-s.quit:
	default:
		close(s.quit)
	}
	s.cancel()
	s.resp.Body.Close()
	<-s.ended
}

// next returns the next event, failing the test if none comes in time.
func (s *sseStream) next(t *testing.T, within time.Duration) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-s.events:
		if !ok {
			t.Fatalf("the stream ended: %v", s.err)
		}
		return ev
	case <-time.After(within):
		t.Fatalf("no event within %v", within)
	}
	panic("unreachable")
}

// waitFor reads events until one is named name and satisfies ok (decoded
// into a fresh T), and returns it; it fails the test after streamWait.
func waitFor[T any](t *testing.T, s *sseStream, name string, ok func(T) bool) T {
	t.Helper()
	deadline := time.After(streamWait)
	var seen []string
	for {
		select {
		case ev, open := <-s.events:
			if !open {
				t.Fatalf("the stream ended (%v) while waiting for %s; saw %q", s.err, name, seen)
			}
			seen = append(seen, ev.name)
			if ev.name != name {
				continue
			}
			v := decode[T](t, ev)
			if ok(v) {
				return v
			}
		case <-deadline:
			t.Fatalf("no matching %s event within %v; saw %q", name, streamWait, seen)
		}
	}
}

// decode decodes an event's data, which must be JSON.
func decode[T any](t *testing.T, ev sseEvent) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(ev.data), &v); err != nil {
		t.Fatalf("event %s: data %q: %v", ev.name, ev.data, err)
	}
	return v
}

// scopeMsg is the data of a scope event.
type scopeMsg struct {
	Scope  *forewarn.Scope   `json:"scope"`
	VMs    []*forewarn.VM    `json:"vms"`
	Events []*forewarn.Event `json:"events"`
}

// initial is the state a stream sends before ready.
type initial struct {
	hello     map[string]any
	scopes    map[string]scopeMsg
	campaigns map[string]*forewarn.Campaign
	names     []string // the events, in order
}

// readInitial reads hello, the whole state and ready.
func (s *sseStream) readInitial(t *testing.T) initial {
	t.Helper()
	first := s.next(t, streamWait)
	if first.name != "hello" {
		t.Fatalf("first event %s %s, want hello", first.name, first.data)
	}
	in := initial{hello: decode[map[string]any](t, first), scopes: map[string]scopeMsg{},
		campaigns: map[string]*forewarn.Campaign{}, names: []string{"hello"}}
	for {
		ev := s.next(t, streamWait)
		in.names = append(in.names, ev.name)
		switch ev.name {
		case "scope":
			m := decode[scopeMsg](t, ev)
			if _, dup := in.scopes[m.Scope.Name]; dup {
				t.Errorf("scope %s sent twice before ready", m.Scope.Name)
			}
			in.scopes[m.Scope.Name] = m
		case "campaign":
			c := decode[*forewarn.Campaign](t, ev)
			if _, dup := in.campaigns[c.ID]; dup {
				t.Errorf("campaign %s sent twice before ready", c.ID)
			}
			in.campaigns[c.ID] = c
		case "ready":
			if ev.data != "{}" {
				t.Errorf("ready's data %q, want {}", ev.data)
			}
			return in
		default:
			t.Fatalf("event %s %s before ready, want scope or campaign", ev.name, ev.data)
		}
	}
}

// checkState fails the test unless the stream's initial state is the
// fabric's: every scope with its VMs and events, every campaign.
func (env *streamEnv) checkState(t *testing.T, in initial) {
	t.Helper()
	ctx := t.Context()
	scopes := must(env.fab.Scopes(ctx))(t)
	if got, want := slices.Sorted(maps.Keys(in.scopes)), scopeNames(scopes); !slices.Equal(got, want) {
		t.Errorf("stream's scopes %q, want %q", got, want)
	}
	for _, sc := range scopes {
		m, ok := in.scopes[sc.Name]
		if !ok {
			continue
		}
		env.checkScope(t, m)
	}
	campaigns := must(env.fab.Campaigns(ctx))(t)
	if len(in.campaigns) != len(campaigns) {
		t.Errorf("stream has %d campaigns, want %d", len(in.campaigns), len(campaigns))
	}
	for _, c := range campaigns {
		sameJSON(t, "campaign "+c.ID, in.campaigns[c.ID], c)
	}
}

// checkScope fails the test unless m is the fabric's scope, with its VMs
// and events in flight.
func (env *streamEnv) checkScope(t *testing.T, m scopeMsg) {
	t.Helper()
	ctx := t.Context()
	name := m.Scope.Name
	sameJSON(t, "scope "+name, storedScope(m.Scope), storedScope(must(env.fab.Scope(ctx, name))(t)))
	vms := whole(env.fab.VMs(ctx, forewarn.VMQuery{Scope: name}))(t)
	sameJSON(t, "VMs of "+name, byKey(m.VMs, vmName), byKey(vms, vmName))
	events := whole(env.fab.Events(ctx, forewarn.EventQuery{Scope: name}))(t)
	sameJSON(t, "events of "+name, byKey(m.Events, eventID), byKey(events, eventID))
}

// storedScope is a scope without the LastSeen that the fabric's Scope
// takes from memory, newer than the one stored and published.
func storedScope(s *forewarn.Scope) *forewarn.Scope {
	c := *s
	c.LastSeen = time.Time{}
	return &c
}

func vmName(vm *forewarn.VM) string    { return vm.Name }
func eventID(e *forewarn.Event) string { return e.ID }

func scopeNames(scopes []*forewarn.Scope) []string {
	var names []string
	for _, s := range scopes {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	return names
}

// byKey indexes a list, so that two lists compare whatever their order.
func byKey[T any](list []T, key func(T) string) map[string]T {
	m := make(map[string]T, len(list))
	for _, v := range list {
		m[key(v)] = v
	}
	return m
}

// sameJSON fails the test unless got and want encode to the same JSON
// value: what the page sees.
func sameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(mustJSON(t, got)), &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(mustJSON(t, want)), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s on the stream:\n got %s\nwant %s", what, mustJSON(t, got), mustJSON(t, want))
	}
}

// TestStreamInitialState: hello, the whole state, ready, in that order.
func TestStreamInitialState(t *testing.T) {
	env := mustStartStream(t)
	env.mustMakeStreamFleet(t)
	s := openStream(t, env.server.URL)
	in := s.readInitial(t)

	if in.hello["replica"] != "host-123" || in.hello["version"] != "v1.2.3-test" {
		t.Errorf("hello %v, want replica host-123, version v1.2.3-test", in.hello)
	}
	st, _ := in.hello["serverTime"].(string)
	at, err := time.Parse(time.RFC3339Nano, st)
	if err != nil || time.Since(at).Abs() > time.Minute {
		t.Errorf("hello's serverTime %q (%v), want now as RFC 3339", st, err)
	}
	// Scopes first, then campaigns, then ready.
	last := slices.Index(in.names, "ready")
	if last != len(in.names)-1 || last != 1+len(in.scopes)+len(in.campaigns) {
		t.Errorf("initial events %q", in.names)
	}
	env.checkState(t, in)
	if len(in.scopes) != 3 || len(in.campaigns) != 1 {
		t.Fatalf("stream has %d scopes and %d campaigns, want 3 and 1", len(in.scopes), len(in.campaigns))
	}
	if len(in.scopes["web"].VMs) != 4 || len(in.scopes["web"].Events) != 1 || len(in.scopes["api"].Events) != 1 {
		t.Errorf("web has %d VMs and %d events, api %d events; want 4, 1 and 1 (the campaign's)",
			len(in.scopes["web"].VMs), len(in.scopes["web"].Events), len(in.scopes["api"].Events))
	}
	for _, c := range in.campaigns {
		if c.State != forewarn.CampaignRunning || len(c.Scopes) != 1 || c.Scopes[0].Event == "" {
			t.Errorf("campaign on the stream %s", mustJSON(t, c))
		}
	}
}

// TestStreamScopeEnabled: a scope's "enabled" on the stream is what the
// API says: true for every scope of a server that enables every scope
// (--dev, AlwaysEnabled here).
func TestStreamScopeEnabled(t *testing.T) {
	env := mustStartStream(t)
	env.mustMakeStreamFleet(t)
	s := openStream(t, env.server.URL)
	in := s.readInitial(t)
	for name, m := range in.scopes {
		want := must(env.fab.Scope(t.Context(), name))(t)
		if !want.Enabled {
			t.Fatalf("scope %s is not enabled on a server that enables every scope", name)
		}
		if !m.Scope.Enabled {
			t.Errorf("scope %s on the stream: enabled false, the API says true", name)
		}
	}
}

// TestStreamScopeEnabledChanges: a scope that a VM enables (its first
// request to the metadata endpoint) shows as enabled on the stream.
func TestStreamScopeEnabledChanges(t *testing.T) {
	env := mustStartStreamWith(t, fabric.Config{})
	must(env.fab.CreateScope(t.Context(), forewarn.ScopeSpec{Name: "web"}))(t)
	must(env.fab.CreateVM(t.Context(), forewarn.VMSpec{Name: "web-0", Scope: "web"}))(t)
	s := openStream(t, env.server.URL)
	if in := s.readInitial(t); in.scopes["web"].Scope.Enabled {
		t.Fatalf("web is enabled on the stream before any VM asked")
	}
	if err := env.fab.Metadata().Enable(t.Context(), "web"); err != nil {
		t.Fatal(err)
	}
	if !must(env.fab.Scope(t.Context(), "web"))(t).Enabled {
		t.Fatalf("the API does not show web enabled after a VM asked")
	}
	waitFor(t, s, "scope", func(m scopeMsg) bool { return m.Scope.Name == "web" && m.Scope.Enabled })
}

// TestStreamEmptyListsAreArrays: a scope without VMs or events sends [],
// which the page can iterate, not null.
func TestStreamEmptyListsAreArrays(t *testing.T) {
	env := mustStartStream(t)
	must(env.fab.CreateScope(t.Context(), forewarn.ScopeSpec{Name: "empty"}))(t)
	s := openStream(t, env.server.URL)
	s.next(t, streamWait) // hello
	ev := s.next(t, streamWait)
	if ev.name != "scope" || !strings.Contains(ev.data, `"vms":[]`) || !strings.Contains(ev.data, `"events":[]`) {
		t.Errorf("empty scope's message %s %s, want vms and events []", ev.name, ev.data)
	}
}

// TestStreamChanges: each change made through the API reaches the stream
// as the new state of its scope or campaign.
func TestStreamChanges(t *testing.T) {
	env := mustStartStream(t)
	env.mustMakeStreamFleet(t)
	ctx, c := t.Context(), env.client
	s := openStream(t, env.server.URL)
	s.readInitial(t)

	e := must(c.Operate(ctx, "web-2", forewarn.OpRedeploy))(t)
	m := waitFor(t, s, "scope", func(m scopeMsg) bool { return m.Scope.Name == "web" && hasEvent(m, e.ID, "") })
	if got := eventIn(m, e.ID); got.Status != forewarn.Scheduled || !slices.Equal(got.Resources, []string{"web-2"}) {
		t.Errorf("the Redeploy on the stream: %s", mustJSON(t, got))
	}
	env.checkScope(t, m)

	must(c.Approve(ctx, e.ID))(t)
	m = waitFor(t, s, "scope", func(m scopeMsg) bool {
		return m.Scope.Name == "web" && hasEvent(m, e.ID, forewarn.Started)
	})
	if got := eventIn(m, e.ID); got.ApprovedBy != "admin" || got.StartedAt.IsZero() {
		t.Errorf("approved event on the stream: %s", mustJSON(t, got))
	}

	camp := must(c.StartCampaign(ctx, forewarn.CampaignSpec{Type: forewarn.Reboot, Scopes: []string{"web"}}))(t)
	got := waitFor(t, s, "campaign", func(cm *forewarn.Campaign) bool { return cm.ID == camp.ID })
	if got.State != forewarn.CampaignRunning || got.Spec.Type != forewarn.Reboot {
		t.Errorf("new campaign on the stream: %s", mustJSON(t, got))
	}
	must(c.SteerCampaign(ctx, camp.ID, forewarn.PauseCampaign))(t)
	waitFor(t, s, "campaign", func(cm *forewarn.Campaign) bool {
		return cm.ID == camp.ID && cm.State == forewarn.CampaignPaused
	})
	must(c.SteerCampaign(ctx, camp.ID, forewarn.CancelCampaign))(t)
	got = waitFor(t, s, "campaign", func(cm *forewarn.Campaign) bool {
		return cm.ID == camp.ID && cm.State == forewarn.CampaignCancelled
	})
	sameJSON(t, "cancelled campaign", got, must(env.fab.Campaign(ctx, camp.ID))(t))

	if err := c.DeleteScope(ctx, "empty"); err != nil {
		t.Fatal(err)
	}
	gone := waitFor(t, s, "scope-removed", func(map[string]string) bool { return true })
	if gone["name"] != "empty" {
		t.Errorf("scope-removed %v, want name empty", gone)
	}

	// A new connection gets the whole state again, without the removed
	// scope and without its tombstone.
	s2 := openStream(t, env.server.URL)
	in := s2.readInitial(t)
	if slices.Contains(in.names, "scope-removed") {
		t.Errorf("a new stream sent a tombstone: %q", in.names)
	}
	if _, ok := in.scopes["empty"]; ok {
		t.Errorf("a new stream sent the removed scope")
	}
	env.checkState(t, in)
	if len(in.campaigns) != 2 || in.campaigns[camp.ID].State != forewarn.CampaignCancelled {
		t.Errorf("new stream's campaigns %s", mustJSON(t, in.campaigns))
	}
}

// hasEvent reports whether the scope message holds the event, with the
// status unless it is "".
func hasEvent(m scopeMsg, id string, status forewarn.EventStatus) bool {
	e := eventIn(m, id)
	return e != nil && (status == "" || e.Status == status)
}

func eventIn(m scopeMsg, id string) *forewarn.Event {
	for _, e := range m.Events {
		if e.ID == id {
			return e
		}
	}
	return nil
}

// TestStreamBurstEndsInFinalState: however a burst of changes to a scope
// is coalesced, the last message the stream sends is the scope's final
// state.
func TestStreamBurstEndsInFinalState(t *testing.T) {
	env := mustStartStream(t)
	env.mustMakeStreamFleet(t)
	ctx, f := t.Context(), env.fab
	s := openStream(t, env.server.URL)
	s.readInitial(t)

	const changes = 30
	for i := range changes {
		switch i % 3 {
		case 0:
			must(f.CreateVM(ctx, forewarn.VMSpec{Name: fmt.Sprintf("web-burst-%d", i), Scope: "web"}))(t)
		case 1:
			must(f.Cancel(ctx, must(f.Operate(ctx, "web-3", forewarn.OpRestart))(t).ID))(t)
		case 2:
			must(f.Degrade(ctx, fmt.Sprintf("web-burst-%d", i-2), 0))(t)
		}
	}
	if err := f.DeleteVM(ctx, "web-0"); err != nil {
		t.Fatal(err)
	}
	// Read until the stream is quiet, keeping the last web message.
	var last *scopeMsg
	n := 0
	for quiet := time.After(streamWait); ; {
		select {
		case ev, ok := <-s.events:
			if !ok {
				t.Fatalf("stream ended: %v", s.err)
			}
			if ev.name == "scope" {
				if m := decode[scopeMsg](t, ev); m.Scope.Name == "web" {
					last, n = &m, n+1
				}
			}
			quiet = time.After(500 * time.Millisecond)
			continue
		case <-quiet:
		}
		break
	}
	if last == nil {
		t.Fatal("no message of web after the burst")
	}
	t.Logf("%d changes to web reached the stream as %d messages", changes+1, n)
	env.checkScope(t, *last)
	if len(last.VMs) != 3+changes/3 {
		t.Errorf("web's last message has %d VMs, want %d", len(last.VMs), 3+changes/3)
	}
}

// TestStreamCoalesces: a burst published faster than the stream sends
// reaches it as a few messages, each scope once per batch, the last one
// being the final state.
func TestStreamCoalesces(t *testing.T) {
	hub := admin.NewHub()
	server := mustStartWithHub(t, hub)
	snap := func(i int) *forewarn.ScopeSnapshot {
		return &forewarn.ScopeSnapshot{Scope: &forewarn.Scope{Name: "web", Incarnation: int64(i)}}
	}
	hub.PublishScope(snap(0))
	s := openStream(t, server.URL)
	s.readInitial(t)
	const burst = 2000
	for i := 1; i <= burst; i++ {
		hub.PublishScope(snap(i))
		if i%2 == 0 {
			hub.PublishScope(&forewarn.ScopeSnapshot{Scope: &forewarn.Scope{Name: "other", Incarnation: int64(i)}})
		}
	}
	var got []int64
	for {
		m := waitFor(t, s, "scope", func(scopeMsg) bool { return true })
		if m.Scope.Name == "web" {
			got = append(got, m.Scope.Incarnation)
			if m.Scope.Incarnation == burst {
				break
			}
		}
	}
	if len(got) > 10 {
		t.Errorf("a burst of %d changes reached the stream as %d messages, want a few", burst, len(got))
	}
	if !slices.IsSorted(got) {
		t.Errorf("incarnations on the stream went back: %v", got)
	}
	select {
	case ev := <-s.events:
		if ev.name == "scope" && decode[scopeMsg](t, ev).Scope.Name == "web" {
			t.Errorf("web sent again after its final state: %s", ev.data)
		}
	case <-time.After(300 * time.Millisecond):
	}
}

// mustStartWithHub starts the admin API with the hub, which the test feeds
// by hand: its control plane publishes elsewhere.
func mustStartWithHub(t *testing.T, hub *admin.Hub) *httptest.Server {
	t.Helper()
	server := httptest.NewServer(admin.NewServer(admin.Config{
		Fleet: fabrictest.New(t, fabric.Config{}), Token: testToken, Hub: hub, Logger: testLogger(t)}))
	t.Cleanup(server.Close)
	return server
}

// TestStreamEndsWhenClientLeaves: a client that goes away ends its stream
// at once, so the server's Close, which waits for every request, returns.
func TestStreamEndsWhenClientLeaves(t *testing.T) {
	env := mustStartStream(t)
	env.mustMakeStreamFleet(t)
	s := openStream(t, env.server.URL)
	s.readInitial(t)
	s.close()
	mustReturn(t, "the server's Close with a stream whose client left", env.server.Close)
}

// TestStreamEndsAtShutdown: the server's Shutdown ends the streams, and a
// stream opened afterwards ends after its initial state, so that an
// http.Server's Shutdown need not wait for them.
func TestStreamEndsAtShutdown(t *testing.T) {
	env := mustStartStream(t)
	env.mustMakeStreamFleet(t)
	s := openStream(t, env.server.URL)
	s.readInitial(t)
	env.api.Shutdown()
	mustEnd(t, s)

	late := openStream(t, env.server.URL)
	env.checkState(t, late.readInitial(t))
	mustEnd(t, late)
	mustReturn(t, "the server's Close after Shutdown", env.server.Close)
}

// mustEnd fails the test unless the stream ends within streamWait, cleanly.
func mustEnd(t *testing.T, s *sseStream) {
	t.Helper()
	select {
	case <-s.ended:
		if s.err != io.EOF {
			t.Errorf("stream ended with %v, want EOF", s.err)
		}
	case <-time.After(streamWait):
		t.Fatalf("the stream did not end within %v", streamWait)
	}
}

// mustReturn fails the test unless fn returns within streamWait.
func mustReturn(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(streamWait):
		t.Fatalf("%s did not return within %v", what, streamWait)
	}
}

// TestStreamRefusals: the stream's errors are JSON with the right status.
func TestStreamRefusals(t *testing.T) {
	env := mustStartStream(t)
	bearer := []string{"Authorization", "Bearer " + testToken}
	for _, tc := range []struct {
		what   string
		target string
		header []string
		status int
		code   string
	}{
		{"no credentials", "/v1/stream", nil, http.StatusUnauthorized, "unauthorized"},
		{"wrong token", "/v1/stream", []string{"Authorization", "Bearer nope"}, http.StatusUnauthorized, "unauthorized"},
		{"bad cookie", "/v1/stream", []string{"Cookie", "forewarn_session=x.y"}, http.StatusUnauthorized, "unauthorized"},
		{"unknown parameter", "/v1/stream?since=5", bearer, http.StatusBadRequest, "invalid"},
		{"malformed query", "/v1/stream?%zz", bearer, http.StatusBadRequest, "invalid"},
	} {
		resp, cancel := getStream(t, env.server.URL+tc.target, tc.header...)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		a := answer{status: resp.StatusCode, header: resp.Header, body: string(b)}
		if a.status != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.what, a.status, a.body, tc.status)
			continue
		}
		if _, code := errorCode(t, a); code != tc.code {
			t.Errorf("%s: code %q, want %q", tc.what, code, tc.code)
		}
	}

	plain := mustStart(t) // no Hub
	a := plain.request(t, "GET", "/v1/stream", testToken, "")
	if a.status != http.StatusNotFound {
		t.Fatalf("GET /v1/stream without a Hub = %d %s, want 404", a.status, a.body)
	}
	if _, code := errorCode(t, a); code != "not_found" {
		t.Errorf("GET /v1/stream without a Hub: code %q, want not_found", code)
	}
	if a := plain.request(t, "POST", "/v1/stream", testToken, ""); a.status != http.StatusMethodNotAllowed {
		t.Errorf("POST /v1/stream = %d, want 405", a.status)
	}
}

// TestStreamWithCookie: the page's EventSource, signed in by the cookie,
// gets the stream; a GET needs no origin check.
func TestStreamWithCookie(t *testing.T) {
	env := mustStartStream(t)
	env.mustMakeStreamFleet(t)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	form := url.Values{"token": {testToken}}
	resp, err := client.Post(env.server.URL+"/ui/login", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "forewarn_session" {
			cookie = c
		}
	}
	if resp.StatusCode != http.StatusSeeOther || cookie == nil {
		t.Fatalf("sign-in = %d with cookies %q, want 303 with the session cookie", resp.StatusCode, resp.Header.Values("Set-Cookie"))
	}
	s := openStream(t, env.server.URL, "Cookie", cookie.Name+"="+cookie.Value, "Sec-Fetch-Site", "same-origin",
		"Sec-Fetch-Mode", "cors")
	env.checkState(t, s.readInitial(t))
	must(env.client.Operate(t.Context(), "web-0", forewarn.OpRestart))(t)
	waitFor(t, s, "scope", func(m scopeMsg) bool { return m.Scope.Name == "web" && len(m.Events) == 2 })
}

// testLogger sends the server's log to the test's.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(tbWriter{t}, nil))
}

// TestStreamHead: HEAD /v1/stream (curl -I, a health check) answers the
// headers and ends, rather than holding the connection: the next request
// on it is answered, and the server's Close returns.
func TestStreamHead(t *testing.T) {
	api := admin.NewServer(admin.Config{Fleet: fabrictest.New(t, fabric.Config{}), Token: testToken, Hub: admin.NewHub()})
	server := httptest.NewServer(api)
	t.Cleanup(server.Close)
	t.Cleanup(api.Shutdown) // first: should the test fail, it ends the stream Close waits for
	client := server.Client()
	ctx, cancel := context.WithTimeout(t.Context(), streamWait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "HEAD", server.URL+"/v1/stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("HEAD /v1/stream: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("HEAD /v1/stream = %d, want 200 or 405", resp.StatusCode)
	}
	req, err = http.NewRequestWithContext(ctx, "GET", server.URL+"/healthz", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err = client.Do(req) // on the same connection, kept alive
	if err != nil {
		t.Fatalf("GET /healthz after HEAD /v1/stream: %v", err)
	}
	resp.Body.Close()
	client.CloseIdleConnections()
	mustReturn(t, "the server's Close after HEAD /v1/stream", server.Close)
}

// TestStreamEndsWithSession: a stream opened with the session cookie ends
// when that session is signed out, rather than serving a stolen copy of
// the cookie for as long as the connection lasts.
func TestStreamEndsWithSession(t *testing.T) {
	env := mustStartStream(t)
	env.mustMakeStreamFleet(t)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm(env.server.URL+"/ui/login", url.Values{"token": {testToken}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(resp.Cookies()) != 1 {
		t.Fatalf("sign-in = %d, cookies %q", resp.StatusCode, resp.Header.Values("Set-Cookie"))
	}
	cookie := resp.Cookies()[0]
	s := openStream(t, env.server.URL, "Cookie", cookie.Name+"="+cookie.Value)
	s.readInitial(t)

	req, err := http.NewRequestWithContext(t.Context(), "POST", env.server.URL+"/ui/logout", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(cookie)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if resp, err = client.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	must(env.client.Operate(t.Context(), "web-0", forewarn.OpRestart))(t)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return // ended
			}
			if ev.name == "scope" {
				t.Fatalf("the stream sent a change after its session was signed out: %s", ev.data)
			}
		case <-time.After(streamWait):
			t.Fatal("the stream of a signed-out session is still open")
		}
	}
}
