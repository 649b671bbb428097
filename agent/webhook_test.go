package agent

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/jonboulle/clockwork"
)

// received is one request a receiver got.
type received struct {
	header http.Header
	body   string
}

// receiver is a webhook endpoint that records what it gets.
type receiver struct {
	url    string
	status func(n int) int // the status of the n-th request (0-based)

	mu   sync.Mutex
	reqs []received
}

// mustStartReceiver starts a receiver on 127.0.0.1; status nil answers 200.
func mustStartReceiver(tb testing.TB, status func(n int) int) *receiver {
	tb.Helper()
	if status == nil {
		status = func(int) int { return http.StatusOK }
	}
	r := &receiver{status: status}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		n := len(r.reqs)
		r.reqs = append(r.reqs, received{header: req.Header.Clone(), body: string(body)})
		r.mu.Unlock()
		if req.Method != http.MethodPost {
			tb.Errorf("webhook method %s, want POST", req.Method)
		}
		w.WriteHeader(r.status(n))
	}))
	tb.Cleanup(srv.Close)
	r.url = srv.URL
	return r
}

// got returns a copy of the requests received so far.
func (r *receiver) got() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.reqs...)
}

// count is how many requests were received.
func (r *receiver) count() int { return len(r.got()) }

// TestWebhookTemplate: a Reboot approved after its (absent) hook posts
// Scheduled, Started and Completed, in order, through a custom template and
// with the configured headers.
func TestWebhookTemplate(t *testing.T) {
	s := mustStartServer(t, 60) // Reboot: 15 s of notice, 1 s of impact
	if _, err := s.f.EnsureDefaultVM(s.ctx, "vm0", []string{"127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	rcv := mustStartReceiver(t, nil)
	mustRunAgent(t, Config{Endpoint: s.url, VMName: "vm0", StateFile: filepath.Join(t.TempDir(), "state.json"),
		Approval: map[EventType]Policy{"Reboot": AfterHook},
		Webhook: &WebhookConfig{URL: rcv.url,
			Headers:  map[string]string{"Authorization": "Bearer s3cret", "X-Forewarn-Test": "yes"},
			Template: `{"text":"{{.VM}} {{.Status}} {{.Event.EventId}} {{.Event.EventType}}"}`}})
	e, err := s.f.Operate(s.ctx, "vm0", forewarn.OpRestart)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "three notifications", func() bool { return rcv.count() >= 3 })
	got := rcv.got()
	for i, status := range []string{Scheduled, Started, Completed} {
		want := `{"text":"vm0 ` + status + " " + e.ID + ` Reboot"}`
		if got[i].body != want {
			t.Errorf("notification %d: body %s, want %s", i, got[i].body, want)
		}
		for k, v := range map[string]string{"Authorization": "Bearer s3cret", "X-Forewarn-Test": "yes",
			"Content-Type": "application/json"} {
			if h := got[i].header.Get(k); h != v {
				t.Errorf("notification %d: header %s %q, want %q", i, k, h, v)
			}
		}
	}
	if len(got) != 3 {
		t.Errorf("%d notifications, want 3", len(got))
	}
}

// TestWebhookDefaultCancelled: with no template the notification is the
// Notification as JSON; a cancelled event posts Scheduled then Cancelled.
func TestWebhookDefaultCancelled(t *testing.T) {
	s := mustStartServer(t, 1)
	if _, err := s.f.EnsureDefaultVM(s.ctx, "vm0", []string{"127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	rcv := mustStartReceiver(t, nil)
	mustRunAgent(t, Config{Endpoint: s.url, VMName: "vm0", StateFile: filepath.Join(t.TempDir(), "state.json"),
		Webhook: &WebhookConfig{URL: rcv.url}})
	e, err := s.f.Operate(s.ctx, "vm0", forewarn.OpRestart)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the Scheduled notification", func() bool { return rcv.count() >= 1 })
	if _, err := s.f.Cancel(s.ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the Cancelled notification", func() bool { return rcv.count() >= 2 })
	got := rcv.got()
	if len(got) != 2 {
		t.Fatalf("%d notifications, want 2", len(got))
	}
	for i, status := range []string{Scheduled, Cancelled} {
		var n Notification
		if err := json.Unmarshal([]byte(got[i].body), &n); err != nil {
			t.Fatalf("notification %d: %v: %s", i, err, got[i].body)
		}
		if n.VM != "vm0" || n.Status != status || n.Event.EventId != e.ID || n.Event.EventType != "Reboot" ||
			n.Event.EventStatus != "Scheduled" || n.Time.IsZero() || len(n.Event.Resources) != 1 {
			t.Errorf("notification %d: %+v, want vm0 %s of Scheduled Reboot %s", i, n, status, e.ID)
		}
		if ct := got[i].header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("notification %d: Content-Type %q", i, ct)
		}
	}
}

// TestWebhookRetries: a receiver answering 500 twice then 200 gets the
// notification on the third attempt, after backoffs of 1 s and 2 s on the
// agent's clock.
func TestWebhookRetries(t *testing.T) {
	s := mustStartServer(t, 1) // 15 min of notice: the event stays Scheduled
	if _, err := s.f.EnsureDefaultVM(s.ctx, "vm0", []string{"127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	rcv := mustStartReceiver(t, func(n int) int {
		if n < 2 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	fc := clockwork.NewFakeClockAt(time.Now())
	mustRunAgent(t, Config{Endpoint: s.url, VMName: "vm0", StateFile: filepath.Join(t.TempDir(), "state.json"),
		Clock: fc, Webhook: &WebhookConfig{URL: rcv.url, Template: `{{.Status}} {{.Event.EventId}}`}})
	e, err := s.f.Operate(s.ctx, "vm0", forewarn.OpRestart)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i, backoff := range []time.Duration{time.Second, 2 * time.Second} {
		// The webhook is the only waiter on the clock (policy never: no
		// approval timer).
		if err := fc.BlockUntilContext(ctx, 1); err != nil {
			t.Fatalf("webhook not waiting before retry %d: %v", i+1, err)
		}
		if n := rcv.count(); n != i+1 {
			t.Fatalf("%d attempts before retry %d, want %d", n, i+1, i+1)
		}
		fc.Advance(backoff - time.Millisecond)
		if err := fc.BlockUntilContext(ctx, 1); err != nil || rcv.count() != i+1 {
			t.Fatalf("retry %d before its backoff of %v: %v", i+1, backoff, err)
		}
		fc.Advance(time.Millisecond)
	}
	waitFor(t, "the third attempt", func() bool { return rcv.count() >= 3 })
	for i, r := range rcv.got() {
		if want := "Scheduled " + e.ID; r.body != want {
			t.Errorf("attempt %d: body %q, want %q", i+1, r.body, want)
		}
	}
	if n := rcv.count(); n != 3 {
		t.Fatalf("%d attempts, want 3", n)
	}
}

// TestWebhookHangs: a receiver that never answers does not hold up the
// hooks: the whole life of the event runs while the first notification
// is still waiting for its answer.
func TestWebhookHangs(t *testing.T) {
	s := mustStartServer(t, 60)
	if _, err := s.f.EnsureDefaultVM(s.ctx, "vm0", []string{"127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	calls := 0
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		mu.Unlock()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // before srv.Close, which waits for the handler
	dir := t.TempDir()
	hooks := filepath.Join(dir, "hooks.log")
	a := mustRunAgent(t, Config{Endpoint: s.url, VMName: "vm0", StateFile: filepath.Join(dir, "state.json"),
		Hooks:    map[EventType]Hooks{"Reboot": recordAll(hooks)},
		Approval: map[EventType]Policy{"Reboot": AfterHook},
		Webhook:  &WebhookConfig{URL: srv.URL, Timeout: Duration(time.Hour)}})
	start := time.Now()
	if _, err := s.f.Operate(s.ctx, "vm0", forewarn.OpRestart); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "on_completed", func() bool { return hookCount(t, hooks, "on_completed") == 1 })
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("hooks took %v with a hung webhook", took)
	}
	for _, hook := range []string{"on_scheduled", "on_started"} {
		if n := hookCount(t, hooks, hook); n != 1 {
			t.Errorf("%s ran %d times, want 1", hook, n)
		}
	}
	mu.Lock()
	n := calls
	mu.Unlock()
	if n != 1 {
		t.Errorf("webhook called %d times, want 1 (still hanging)", n)
	}
	a.stop(t) // a hung webhook does not keep the agent from stopping
}

// TestWebhookConfigErrors: a bad URL or template is refused by New.
func TestWebhookConfigErrors(t *testing.T) {
	for _, wh := range []WebhookConfig{
		{URL: "ftp://example"},
		{URL: "http://127.0.0.1:1", Template: "{{.Nope"},
	} {
		_, err := New(Config{StateFile: filepath.Join(t.TempDir(), "s.json"), Webhook: &wh}, nil)
		if err == nil || !strings.Contains(err.Error(), "webhook") {
			t.Errorf("webhook %+v: error %v, want a webhook error", wh, err)
		}
	}
}
