package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// testLongpollOptions are options for a small long-poll load on url.
func testLongpollOptions(url string, clients int) longpollOptions {
	return longpollOptions{
		layout:   layout{prefix: "lp", scopes: 1, vms: 5, updateDomains: 5, base: mustAddr("127.3.0.1")},
		endpoint: url, admin: "unused", clients: clients, dialers: 50, apiVersion: "2020-07-01",
		pollTimeout: time.Minute, checkHeld: runtime.GOOS == "linux", settle: 50 * time.Millisecond,
		wait: 10 * time.Second, target: time.Second,
	}
}

// TestLongpoll runs the load twice against the real metadata endpoint:
// every client gets the new document, and the second run restarts another
// VM since the first has an event in flight.
func TestLongpoll(t *testing.T) {
	f := newTestFleet(t, testLongpollOptions("", 0).layout, 0)
	o := testLongpollOptions(f.url, 300)
	for run, want := range []struct{ vm, oldTag, newTag string }{{"lp-0-0", "1", "2"}, {"lp-0-1", "2", "3"}} {
		r, err := longpoll(t.Context(), o, restarter{o.layout, f}, io.Discard)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if r.failed() || r.Answered != 300 || r.Latency.Count != 300 || r.ReadLatency.Count != 300 {
			t.Fatalf("run %d: %+v", run, r)
		}
		if r.VM != want.vm || r.OldTag != want.oldTag || r.NewTag != want.newTag || r.Event == "" ||
			r.Change != "restart of "+want.vm+" (event "+r.Event+")" {
			t.Errorf("run %d: changed %s (%s), %q -> %q; want %+v", run, r.VM, r.Change, r.OldTag, r.NewTag, want)
		}
		if r.Latency.Max <= 0 || r.Latency.Max > r.ReadLatency.Max || r.FanOut.Max > r.Latency.Max {
			t.Errorf("run %d: arrival %v, read %v, fan-out %v", run, r.Latency, r.ReadLatency, r.FanOut)
		}
		if runtime.GOOS == "linux" && (!r.Timestamps || !strings.Contains(r.Held, "socket table")) {
			t.Errorf("run %d: timestamps %v, held %q", run, r.Timestamps, r.Held)
		}
	}
	if len(f.restarted) != 2 {
		t.Errorf("restarted %q, want two VMs", f.restarted)
	}
}

// fakeChange closes a channel as its change.
type fakeChange chan struct{}

func (c fakeChange) Operate(context.Context, string, forewarn.Operation) (*forewarn.Event, error) {
	close(c)
	return &forewarn.Event{ID: "e1"}, nil
}

// TestLongpollNotHeld: a server that answers long-polls at once fails the
// load before the change.
func TestLongpollNotHeld(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"1"`)
		w.Write([]byte(`{"DocumentIncarnation":1,"Events":[]}`))
	}))
	defer srv.Close()
	change := make(fakeChange)
	o := testLongpollOptions(srv.URL, 20)
	_, err := longpoll(t.Context(), o, restarter{o.layout, change}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "20 long-polls were answered before the change") {
		t.Fatalf("got %v", err)
	}
	select {
	case <-change:
		t.Error("the change was made")
	default:
	}
}

// TestLongpollErrors: answers other than a new document are errors, and
// long-polls never answered are missing.
func TestLongpollErrors(t *testing.T) {
	change := make(fakeChange)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("wait_for_change") != "true" {
			w.Header().Set("ETag", `"1"`)
			return
		}
		<-change
		switch r.RemoteAddr[:strings.LastIndex(r.RemoteAddr, ":")] {
		case "127.3.0.1":
			w.WriteHeader(http.StatusInternalServerError)
		case "127.3.0.2":
			w.Header().Set("ETag", `"1"`) // the old document
		case "127.3.0.3":
			<-r.Context().Done() // never answered
		default:
			w.Header().Set("ETag", `"2"`)
		}
	}))
	defer srv.Close()
	o := testLongpollOptions(srv.URL, 10) // two clients per VM
	o.wait = 500 * time.Millisecond
	r, err := longpoll(t.Context(), o, restarter{o.layout, change}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !r.failed() || r.Answered != 4 || r.Errors != 4 || r.Missing != 2 || len(r.ErrorSamples) != 4 {
		t.Fatalf("got %+v", r)
	}
	if !strings.Contains(strings.Join(r.ErrorSamples, "\n"), "answered 500") ||
		!strings.Contains(strings.Join(r.ErrorSamples, "\n"), "the old document") {
		t.Errorf("samples %q", r.ErrorSamples)
	}
	var out strings.Builder
	if err := report(&out, io.Discard, false, r); err != errFailed || !strings.Contains(out.String(), "4 errors, 2 missing") {
		t.Errorf("report: %v\n%s", err, out.String())
	}
}

// TestRunLongpollTrigger runs `fleetload longpoll -trigger` against the
// real metadata endpoint, its change a POST to a server that restarts a VM.
func TestRunLongpollTrigger(t *testing.T) {
	o := testLongpollOptions("", 0)
	f := newTestFleet(t, o.layout, 0)
	var posts atomic.Int32
	trigger := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/trigger" {
			http.Error(w, "want POST /trigger", http.StatusBadRequest)
			return
		}
		posts.Add(1)
		if _, err := f.Operate(r.Context(), "lp-0-3", forewarn.OpRestart); err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer trigger.Close()
	args := []string{"longpoll", "-prefix", "lp", "-vms", "5", "-base", "127.3.0.1", "-url", f.url,
		"-trigger", trigger.URL + "/trigger", "-clients", "200", "-settle", "50ms",
		"-check-held=" + strconv.FormatBool(o.checkHeld), "-server-pid", strconv.Itoa(os.Getpid()), "-json"}
	var stdout, stderr strings.Builder
	if code := run(t.Context(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d: %s", code, stderr.String())
	}
	var r longpollResult
	if err := json.Unmarshal([]byte(stdout.String()), &r); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if r.Answered != 200 || r.Change != "POST "+trigger.URL+"/trigger" || r.VM != "" || r.NewTag != "2" || r.CPU.ServerMs < 0 {
		t.Errorf("got %+v", r)
	}
	if posts.Load() != 1 || !slices.Equal(f.restarted, []string{"lp-0-3"}) {
		t.Errorf("%d POSTs, restarted %q; want 1, lp-0-3", posts.Load(), f.restarted)
	}

	// Again: the VM has an event in flight, the trigger answers 409 and
	// the load fails saying so.
	stderr.Reset()
	if code := run(t.Context(), args, io.Discard, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "409 Conflict: lp-0-3 has an event in flight") {
		t.Errorf("exit code %d: %s", code, stderr.String())
	}
}

func TestParseLongpollChange(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "give -admin"},
		{[]string{"-admin", "http://127.0.0.1:1", "-trigger", "http://127.0.0.1:2/trigger"}, "give -admin"},
		{[]string{"-trigger", "127.0.0.1:2/trigger"}, "want http://HOST:PORT/PATH"},
		{[]string{"-trigger", "https://127.0.0.1:2/trigger"}, "want http://HOST:PORT/PATH"},
	} {
		_, err := parseLongpoll(append([]string{"-url", "http://127.0.0.1:1"}, tt.args...), io.Discard)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want a usage error with %q", tt.args, err, tt.want)
		}
	}
	o, err := parseLongpoll([]string{"-url", "http://127.0.0.1:1", "-trigger", "http://127.0.0.1:2/trigger"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	// No admin token is needed.
	t.Setenv("FOREWARN_TOKEN", "")
	if m, err := o.changeMaker(); err != nil || m.describe() != "POST http://127.0.0.1:2/trigger" {
		t.Errorf("got %v, %v", m, err)
	}
}
