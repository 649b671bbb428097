package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
)

// TestServeStream: serve feeds the dashboard's stream from the control
// plane, and its shutdown ends the open streams at once instead of
// waiting out --shutdown-timeout.
func TestServeStream(t *testing.T) {
	s := startServer(t, "--shutdown-timeout", "8s")
	c := admin.NewClient(s.adminURL, s.token)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", s.adminURL+"/v1/stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/stream = %d, want 200", resp.StatusCode)
	}
	events := make(chan [2]string, 100)
	go readEvents(resp, events)
	next := func() (string, string) {
		t.Helper()
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("the stream ended")
			}
			return ev[0], ev[1]
		case <-time.After(waitLimit):
			t.Fatal("no event on the stream")
		}
		return "", ""
	}
	// waitFor reads events until one named name holds substr.
	waitFor := func(name, substr string) {
		t.Helper()
		for {
			if n, d := next(); n == name && strings.Contains(d, substr) {
				return
			}
		}
	}

	name, data := next()
	var hello struct{ Replica, Version string }
	if err := json.Unmarshal([]byte(data), &hello); name != "hello" || err != nil {
		t.Fatalf("first event %s %s (%v), want hello", name, data, err)
	}
	st, err := c.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if hello.Replica != st.Self || hello.Version != build.Version {
		t.Errorf("hello %s, want replica %q and version %q", data, st.Self, build.Version)
	}
	sawHost := false
	for name, data = next(); name != "ready"; name, data = next() {
		sawHost = sawHost || (name == "scope" && strings.Contains(data, `"name":"`+s.hostVM+`"`))
	}
	if !sawHost {
		t.Errorf("the stream's initial state has no scope of the default VM %s", s.hostVM)
	}

	e, err := c.Operate(t.Context(), s.hostVM, forewarn.OpRestart)
	if err != nil {
		t.Fatal(err)
	}
	waitFor("scope", e.ID)
	camp, err := c.StartCampaign(t.Context(), forewarn.CampaignSpec{Type: forewarn.Freeze, All: true})
	if err != nil {
		t.Fatal(err)
	}
	waitFor("campaign", camp.ID)

	start := time.Now()
	s.cancel()
	select {
	case <-s.stopped:
	case <-time.After(waitLimit):
		t.Fatalf("serve did not stop with a stream open; log:\n%s", s.logs)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("serve took %v to stop with a stream open, want it to end the stream at once", took)
	}
	for ended := time.After(waitLimit); ; {
		select {
		case _, open := <-events:
			if open {
				continue
			}
		case <-ended:
			t.Fatal("the stream is still open after serve returned")
		}
		break
	}
}

// readEvents sends the stream's events (name, data) until it ends.
func readEvents(resp *http.Response, events chan<- [2]string) {
	defer close(events)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var name, data string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			events <- [2]string{name, data}
			name, data = "", ""
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = strings.TrimPrefix(line, "data: ")
		}
	}
}
