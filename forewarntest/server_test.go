package forewarntest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
	"github.com/forewarn/forewarn/client"
	"github.com/forewarn/forewarn/forewarntest"
)

// TestMain checks that no goroutine is left once every test and example
// has run.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// newVM creates a VM through the server's fleet and returns its SDK client.
func newVM(t testing.TB, srv *forewarntest.Server, spec forewarn.VMSpec) *client.Client {
	t.Helper()
	if _, err := srv.Fleet().CreateVM(t.Context(), spec); err != nil {
		t.Fatalf("create vm %s: %v", spec.Name, err)
	}
	return client.New(client.WithEndpoint(srv.URL), client.WithHTTPClient(srv.Client(spec.Name)), client.WithRetry(1, 0))
}

func TestNewServesBothAPIsOnLoopback(t *testing.T) {
	srv := forewarntest.New(t)
	for _, u := range []string{srv.URL, srv.AdminURL} {
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			t.Errorf("URL %q: want http://127.0.0.1:PORT", u)
		}
	}
	if srv.URL == srv.AdminURL {
		t.Errorf("URL and AdminURL are both %s", srv.URL)
	}
	if err := admin.NewClient(srv.AdminURL, srv.AdminToken).Health(t.Context()); err != nil {
		t.Errorf("admin API health: %v", err)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/metadata/versions", nil)
	req.Header.Set("Metadata", "true")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("metadata versions: %s", res.Status)
	}
	http.DefaultClient.CloseIdleConnections()
}

func TestAdminToken(t *testing.T) {
	srv := forewarntest.New(t)
	if _, err := admin.NewClient(srv.AdminURL, srv.AdminToken).Scopes(t.Context()); err != nil {
		t.Errorf("with AdminToken: %v", err)
	}
	if _, err := admin.NewClient(srv.AdminURL, srv.AdminToken+"x").Scopes(t.Context()); admin.StatusCode(err) != http.StatusUnauthorized {
		t.Errorf("with another token: got %v, want 401", err)
	}
}

func TestFleetIsTheAdminAPI(t *testing.T) {
	srv := forewarntest.New(t)
	if _, ok := srv.Fleet().(*admin.Client); !ok {
		t.Fatalf("Fleet is a %T, want *admin.Client", srv.Fleet())
	}
	if _, err := srv.Fleet().CreateScope(t.Context(), forewarn.ScopeSpec{Name: "web"}); err != nil {
		t.Fatal(err)
	}
	// What Fleet made, another client of the admin API sees.
	if _, err := admin.NewClient(srv.AdminURL, srv.AdminToken).Scope(t.Context(), "web"); err != nil {
		t.Errorf("scope web: %v", err)
	}
}

func TestFleetGivesEachVMAnAddress(t *testing.T) {
	srv := forewarntest.New(t)
	ctx := t.Context()
	fleet := srv.Fleet()
	if _, err := fleet.CreateVM(ctx, forewarn.VMSpec{Name: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := fleet.CreateVM(ctx, forewarn.VMSpec{Name: "own", Addresses: []string{"127.0.0.9"}}); err != nil {
		t.Fatal(err)
	}
	if err := fleet.CreateBatch(ctx, []forewarn.ScopeSpec{{Name: "s"}}, []forewarn.VMSpec{{Name: "b", Scope: "s"}, {Name: "c", Scope: "s"}}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "127.1.0.1", "own": "127.0.0.9", "b": "127.1.0.2", "c": "127.1.0.3"}
	for name, addr := range want {
		vm, err := fleet.VM(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if len(vm.Addresses) != 1 || vm.Addresses[0] != addr {
			t.Errorf("vm %s has addresses %v, want [%s]", name, vm.Addresses, addr)
		}
	}
}

func TestClientCallsAsItsVM(t *testing.T) {
	srv := forewarntest.New(t)
	for _, spec := range []forewarn.VMSpec{{Name: "web-0"}, {Name: "web-1"}, {Name: "db-0", Addresses: []string{"127.0.0.9"}}} {
		me, err := newVM(t, srv, spec).Instance(t.Context())
		if err != nil {
			t.Fatalf("%s: instance metadata: %v", spec.Name, err)
		}
		if me.Name != spec.Name {
			t.Errorf("the client of %s is taken for %s", spec.Name, me.Name)
		}
	}
}

func TestClientFailsTheTestWithoutAnAddress(t *testing.T) {
	for name, spec := range map[string]forewarn.VMSpec{
		"not loopback": {Name: "web-0", Addresses: []string{"10.0.0.4"}},
		"ipv6":         {Name: "web-0", Addresses: []string{"::1"}},
		"no such vm":   {},
	} {
		t.Run(name, func(t *testing.T) {
			ft := newFatalT(t)
			srv := forewarntest.New(ft)
			if spec.Name != "" {
				if _, err := admin.NewClient(srv.AdminURL, srv.AdminToken).CreateVM(t.Context(), spec); err != nil {
					t.Fatal(err)
				}
			}
			ft.run(func() { srv.Client("web-0") })
			if msg := ft.message(); !strings.Contains(msg, `forewarntest: Client("web-0")`) {
				t.Errorf("Client did not fail the test with a clear message: %q", msg)
			}
		})
	}
}

func TestAdvanceStartsAndEndsEventsOnTime(t *testing.T) {
	srv := forewarntest.New(t, forewarntest.WithDev())
	ctx := t.Context()
	newVM(t, srv, forewarn.VMSpec{Name: "web-0"})
	e, err := srv.Fleet().Operate(ctx, "web-0", forewarn.OpRestart)
	if err != nil {
		t.Fatal(err)
	}
	srv.Advance(e.NotBefore.Sub(srv.Now()) - time.Second)
	if got := event(t, srv, e.ID); got.Status != forewarn.Scheduled {
		t.Fatalf("a second before NotBefore: %s, want Scheduled", got.Status)
	}
	srv.Advance(time.Hour) // past NotBefore and the impact, in one call
	if h, err := srv.Fleet().History(ctx, 1); err != nil || len(h) != 1 || h[0].ID != e.ID {
		t.Fatalf("history: %v, %v; want the restart", h, err)
	} else if !h[0].StartedAt.Equal(e.NotBefore) || !h[0].EndedAt.Equal(h[0].EndsAt) {
		t.Errorf("started at %v (NotBefore %v), ended at %v (EndsAt %v): Advance did not stop at each",
			h[0].StartedAt, e.NotBefore, h[0].EndedAt, h[0].EndsAt)
	}
}

func TestAdvanceMovesNow(t *testing.T) {
	srv := forewarntest.New(t)
	if !srv.Now().Equal(forewarntest.Start) {
		t.Errorf("Now is %v, want Start (%v)", srv.Now(), forewarntest.Start)
	}
	srv.Advance(90 * time.Minute)
	srv.Advance(0)
	if want := forewarntest.Start.Add(90 * time.Minute); !srv.Now().Equal(want) {
		t.Errorf("Now is %v, want %v", srv.Now(), want)
	}
	ft := newFatalT(t)
	back := forewarntest.New(ft)
	ft.run(func() { back.Advance(-time.Second) })
	if msg := ft.message(); !strings.Contains(msg, "does not go back") {
		t.Errorf("Advance(-1s) did not fail the test: %q", msg)
	}
}

func TestApprovalStartsTheEventBeforeItsAnswer(t *testing.T) {
	srv := forewarntest.New(t, forewarntest.WithDev())
	ctx := t.Context()
	sdk := newVM(t, srv, forewarn.VMSpec{Name: "web-0"})
	e, err := srv.Fleet().Operate(ctx, "web-0", forewarn.OpRestart)
	if err != nil {
		t.Fatal(err)
	}
	if err := sdk.Approve(ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	if got := event(t, srv, e.ID); got.Status != forewarn.Started || got.ApprovedBy != "web-0" {
		t.Errorf("after the VM's approval: %s approved by %q, want Started by web-0", got.Status, got.ApprovedBy)
	}
}

func TestWithoutDevTheFirstRequestEnables(t *testing.T) {
	srv := forewarntest.New(t)
	ctx := t.Context()
	newVM(t, srv, forewarn.VMSpec{Name: "quiet"})
	sdk := newVM(t, srv, forewarn.VMSpec{Name: "asks"})
	if _, err := sdk.Get(ctx); err != nil {
		t.Fatal(err)
	}
	for vm, want := range map[string]forewarn.EventStatus{"quiet": forewarn.Started, "asks": forewarn.Scheduled} {
		e, err := srv.Fleet().Operate(ctx, vm, forewarn.OpRestart)
		if err != nil {
			t.Fatal(err)
		}
		if e.Status != want {
			t.Errorf("restart of %s: %s, want %s", vm, e.Status, want)
		}
	}
}

func TestWithDevEnablesEveryScope(t *testing.T) {
	srv := forewarntest.New(t, forewarntest.WithDev())
	newVM(t, srv, forewarn.VMSpec{Name: "quiet"})
	e, err := srv.Fleet().Operate(t.Context(), "quiet", forewarn.OpRestart)
	if err != nil {
		t.Fatal(err)
	}
	if e.Status != forewarn.Scheduled {
		t.Errorf("restart of a VM that never asked: %s, want Scheduled", e.Status)
	}
}

func TestWithFleetFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fleet.yaml")
	file := "scopes:\n  - name: web\n    vms:\n      - name: web-0\n      - {name: web-1, addresses: [127.0.0.7]}\n"
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := forewarntest.New(t, forewarntest.WithFleetFile(path))
	for _, name := range []string{"web-0", "web-1"} {
		sdk := client.New(client.WithEndpoint(srv.URL), client.WithHTTPClient(srv.Client(name)))
		me, err := sdk.Instance(t.Context())
		if err != nil || me.Name != name {
			t.Errorf("%s: instance %+v, %v", name, me, err)
		}
	}
}

func TestWithFleetFileFailsOnABadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fleet.yaml")
	if err := os.WriteFile(path, []byte("scopes: [{nme: web}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ft := newFatalT(t)
	ft.run(func() { forewarntest.New(ft, forewarntest.WithFleetFile(path)) })
	if msg := ft.message(); !strings.Contains(msg, "WithFleetFile") || !strings.Contains(msg, "every scope needs a name") {
		t.Errorf("New did not fail the test on a bad fleet file: %q", msg)
	}
}

func TestWithTimeScaleUsesTheRealClock(t *testing.T) {
	srv := forewarntest.New(t, forewarntest.WithTimeScale(900), forewarntest.WithDev())
	if d := time.Since(srv.Now()); d < -time.Second || d > time.Second {
		t.Fatalf("Now is %v, %v from the real clock", srv.Now(), d)
	}
	newVM(t, srv, forewarn.VMSpec{Name: "web-0"})
	e, err := srv.Fleet().Operate(t.Context(), "web-0", forewarn.OpRestart)
	if err != nil {
		t.Fatal(err)
	}
	if n := e.NotBefore.Sub(srv.Now()); n > 2*time.Second {
		t.Errorf("notice %v: 15 minutes at scale 900 is 1 s", n)
	}
	start := time.Now()
	srv.Advance(30 * time.Minute) // 2 s at scale 900
	if waited := time.Since(start); waited < 2*time.Second {
		t.Errorf("Advance(30m) at scale 900 waited %v, want 2 s", waited)
	}
	if got := event(t, srv, e.ID); got != nil && got.Status == forewarn.Scheduled {
		t.Errorf("restart still Scheduled a second after its NotBefore")
	}
}

func TestWithLogger(t *testing.T) {
	var buf syncBuffer
	srv := forewarntest.New(t, forewarntest.WithLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	if _, err := srv.Fleet().Scopes(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "component=admin") {
		t.Errorf("the admin API logged nothing to the logger: %q", buf.String())
	}
}

// TestParallelServers runs servers side by side: each has its own fleet,
// clock and ports, and the same names mean different VMs.
func TestParallelServers(t *testing.T) {
	for _, name := range []string{"a", "b", "c", "d"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := forewarntest.New(t)
			sdk := newVM(t, srv, forewarn.VMSpec{Name: "web-0"})
			if _, err := sdk.Get(t.Context()); err != nil {
				t.Fatal(err)
			}
			if _, err := srv.Fleet().CreateVM(t.Context(), forewarn.VMSpec{Name: "only-" + name}); err != nil {
				t.Fatal(err)
			}
			e, err := srv.Fleet().Operate(t.Context(), "web-0", forewarn.OpRestart)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := sdk.Get(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(doc.Events) != 1 || doc.Events[0].EventId != e.ID {
				t.Errorf("web-0 sees %+v, want only its server's restart %s", doc.Events, e.ID)
			}
			vms, _, err := srv.Fleet().VMs(t.Context(), forewarn.VMQuery{})
			if err != nil || len(vms) != 2 {
				t.Errorf("server %s has %d VMs (%v), want its own 2", name, len(vms), err)
			}
			srv.Advance(time.Duration(len(name)) * time.Hour)
		})
	}
}

// TestCleanupLeavesNoGoroutine stops a server that holds a long-poll, a
// live stream and idle connections, and checks that nothing of it runs
// on.
func TestCleanupLeavesNoGoroutine(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	// The held requests give up after a while, so that a cleanup that does
	// not answer them fails the test rather than hang it.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var held sync.WaitGroup
	answered := make(chan error, 2)
	t.Run("server", func(t *testing.T) {
		srv := forewarntest.New(t)
		sdk := newVM(t, srv, forewarn.VMSpec{Name: "web-0"})
		doc, err := sdk.Get(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		longPoll, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/metadata/scheduledevents?api-version=2020-07-01"+
			"&wait_for_change=true&timeout_sec=300&last_etag="+strings.Trim(doc.ETag, `"`), nil)
		longPoll.Header.Set("Metadata", "true")
		stream, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.AdminURL+"/v1/stream", nil)
		stream.Header.Set("Authorization", "Bearer "+srv.AdminToken)
		hc := srv.Client("web-0")
		for _, req := range []*http.Request{longPoll, stream} {
			held.Add(1)
			go func() {
				defer held.Done()
				res, err := hc.Do(req)
				if err == nil {
					_, err = io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
				answered <- err
			}()
		}
		time.Sleep(50 * time.Millisecond) // let both requests reach the server
	})
	held.Wait()
	for range 2 {
		if err := <-answered; err != nil {
			t.Errorf("a request held at cleanup: %v", err)
		}
	}
}

// event returns the event in flight, or nil once it has ended.
func event(t testing.TB, srv *forewarntest.Server, id string) *forewarn.Event {
	t.Helper()
	e, err := srv.Fleet().Event(t.Context(), id)
	if errors.Is(err, forewarn.ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatalf("event %s: %v", id, err)
	}
	return e
}

// fatalT is a testing.TB whose Fatalf ends the function run runs, keeping
// the message, so that a test can check that something fails the test. Its
// cleanups run at the end of the test.
type fatalT struct {
	testing.TB
	mu       sync.Mutex
	msg      string
	cleanups []func()
}

func newFatalT(t *testing.T) *fatalT {
	ft := &fatalT{TB: t}
	t.Cleanup(func() {
		for i := len(ft.cleanups) - 1; i >= 0; i-- {
			ft.cleanups[i]()
		}
	})
	return ft
}

func (t *fatalT) Helper()           {}
func (t *fatalT) Cleanup(fn func()) { t.cleanups = append(t.cleanups, fn) }
func (t *fatalT) Errorf(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.msg += fmt.Sprintf(format, args...)
}
func (t *fatalT) Fatalf(format string, args ...any) {
	t.Errorf(format, args...)
	runtime.Goexit()
}

func (t *fatalT) message() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.msg
}

// run runs fn in a goroutine of its own, which Fatalf ends.
func (t *fatalT) run(fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	<-done
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestSDKWatch follows the documents with the SDK's Watch, which
// long-polls: a change answers the held request at once, fake clock or not.
func TestSDKWatch(t *testing.T) {
	srv := forewarntest.New(t, forewarntest.WithDev())
	sdk := newVM(t, srv, forewarn.VMSpec{Name: "web-0"})
	ctx, cancel := context.WithCancel(t.Context())
	docs := make(chan *client.Document)
	watched := make(chan error, 1)
	go func() {
		watched <- sdk.Watch(ctx, func(d *client.Document) error {
			select {
			case docs <- d:
			case <-ctx.Done():
			}
			return nil
		})
	}()
	if d := <-docs; len(d.Events) != 0 {
		t.Fatalf("first document: %+v, want no events", d.Events)
	}
	e, err := srv.Fleet().Operate(t.Context(), "web-0", forewarn.OpRestart)
	if err != nil {
		t.Fatal(err)
	}
	if d := <-docs; len(d.Events) != 1 || d.Events[0].EventId != e.ID {
		t.Errorf("after the restart: %+v, want it", d.Events)
	}
	cancel()
	if err := <-watched; !errors.Is(err, context.Canceled) {
		t.Errorf("Watch: %v, want context.Canceled", err)
	}
}

func TestWithFleetFileSaysOnceWhatIsMissing(t *testing.T) {
	ft := newFatalT(t)
	ft.run(func() { forewarntest.New(ft, forewarntest.WithFleetFile("/nonexistent/fleet.yaml")) })
	if msg := ft.message(); !strings.Contains(msg, "/nonexistent/fleet.yaml") || strings.Count(msg, "fleet file") > 1 {
		t.Errorf("New with a missing fleet file: %q, want the path, with \"fleet file\" once", msg)
	}
}

func TestWithTimeScaleRefusesWhatServeRefuses(t *testing.T) {
	for _, scale := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		ft := newFatalT(t)
		ft.run(func() { forewarntest.New(ft, forewarntest.WithTimeScale(scale)) })
		if msg := ft.message(); !strings.Contains(msg, "WithTimeScale") {
			t.Errorf("WithTimeScale(%v): New failed with %q, want it to refuse the scale", scale, msg)
		}
	}
}
