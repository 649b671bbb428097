package e2e

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/bolt"
)

type document struct {
	DocumentIncarnation int
	Events              []struct{ EventId, EventStatus, NotBefore string }
}

func decode(t *testing.T, body string) document {
	t.Helper()
	var d document
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		t.Fatalf("document %q: %v", body, err)
	}
	return d
}

// TestSIGTERMShutsDownCleanly: a held long-poll answers at once, the process
// exits 0, and the store is closed (it opens again without waiting).
func TestSIGTERMShutsDownCleanly(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	if seen := lastSeen(t, s); !seen.IsZero() {
		t.Fatalf("the default scope was asked before the long-poll, at %v", seen)
	}
	polled := make(chan string, 1)
	go func() {
		_, body, err := s.tryGet("api-version=2020-07-01&wait_for_change=true&last_etag=1&timeout_sec=300")
		if err != nil {
			body = err.Error()
		}
		polled <- body
	}()
	// The server notes a scope's request as it admits it, before it holds
	// it (for the first call's delay, then for a change): once the admin
	// API shows the request, the long-poll is held.
	eventually(t, 30*time.Second, "the long-poll at the server", func() bool { return !lastSeen(t, s).IsZero() })
	if err := s.stop(syscall.SIGTERM); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, s.log.String())
	}
	select {
	case body := <-polled:
		if d := decode(t, body); d.DocumentIncarnation != 1 {
			t.Fatalf("long-poll answer at shutdown: %s", body)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("held long-poll not answered at shutdown")
	}
	st, err := bolt.Open(dir+"/forewarn.db", bolt.Options{Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("store not closed at exit: %v", err)
	}
	st.Close()
}

// lastSeen returns when the default scope's VM last asked the metadata
// endpoint, as the admin API shows it; zero if never.
func lastSeen(t *testing.T, s *server) time.Time {
	t.Helper()
	sc, err := s.admin.Scope(context.Background(), "default")
	if err != nil {
		t.Fatal(err)
	}
	return sc.LastSeen
}

// TestKill9KeepsAcknowledgedWrites: everything the APIs acknowledged is there
// after kill -9 and a restart, with the same incarnations, and the timers
// resume from the stored deadlines.
func TestKill9KeepsAcknowledgedWrites(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	host, _ := os.Hostname()
	s := startServer(t, dir, "--dev")
	if _, err := s.admin.CreateScope(ctx, forewarn.ScopeSpec{Name: "web", Kind: forewarn.ScaleSet}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.admin.CreateVM(ctx, forewarn.VMSpec{Name: "web-0", Scope: "web"}); err != nil {
		t.Fatal(err)
	}
	e, err := s.admin.Operate(ctx, host, forewarn.OpRestart)
	if err != nil {
		t.Fatal(err)
	}
	_, before := s.get("api-version=2020-07-01")
	events, _, err := s.admin.Events(ctx, forewarn.EventQuery{})
	if err != nil || len(events) != 1 || events[0].ID != e.ID {
		t.Fatalf("events before kill -9: %+v, %v; want the restart", events, err)
	}
	scopes, err := s.admin.Scopes(ctx)
	if err != nil || len(scopes) != 2 {
		t.Fatalf("scopes before kill -9: %+v, %v; want default and web", scopes, err)
	}

	if err := s.stop(syscall.SIGKILL); err == nil {
		t.Fatal("kill -9 reported a clean exit")
	}
	s = startServer(t, dir, "--dev")
	if _, after := s.get("api-version=2020-07-01"); after != before {
		t.Fatalf("document after kill -9:\n%s\nbefore:\n%s", after, before)
	}
	eventsAfter, _, err := s.admin.Events(ctx, forewarn.EventQuery{})
	if err != nil {
		t.Fatal(err)
	}
	scopesAfter, err := s.admin.Scopes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(events, eventsAfter) {
		t.Fatalf("events after kill -9: %+v; before %+v", eventsAfter, events)
	}
	if len(scopesAfter) != len(scopes) {
		t.Fatalf("scopes after kill -9: %+v; before %+v", scopesAfter, scopes)
	}
	for i := range scopes {
		if scopes[i].Name != scopesAfter[i].Name || scopes[i].Incarnation != scopesAfter[i].Incarnation {
			t.Fatalf("scope after kill -9: %+v; before %+v", scopesAfter[i], scopes[i])
		}
	}
	// The restart's 15 s of notice (scale 60) still runs out at the stored
	// NotBefore: the event starts, and not before it (the test's clock is
	// the server's). The bound past NotBefore is for a loaded machine.
	deadline := time.Now().Add(time.Until(e.NotBefore) + 30*time.Second)
	for time.Now().Before(deadline) {
		_, body := s.get("api-version=2020-07-01")
		d := decode(t, body)
		if len(d.Events) == 1 && d.Events[0].EventStatus == "Started" {
			if time.Now().Before(e.NotBefore) {
				t.Fatalf("started before NotBefore %v", e.NotBefore)
			}
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("event never started after the restart")
}
