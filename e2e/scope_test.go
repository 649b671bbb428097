package e2e

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// from returns an HTTP client whose connections come from the given
// loopback address, as a VM with that address. A request that gets no
// answer in a minute fails: a guard against a hang, not a wait.
func from(t *testing.T, addr string) *http.Client {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(addr)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}, Timeout: time.Minute}
}

func call(t *testing.T, c *http.Client, method, url, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Metadata", "true")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read the answer: %v", method, url, err)
	}
	return resp.StatusCode, string(b)
}

// TestScopesAreIsolated: a VM of another scope neither sees nor can approve
// the event, and an unknown address gets 403, through the real binary.
func TestScopesAreIsolated(t *testing.T) {
	ctx := context.Background()
	s := startServer(t, t.TempDir(), "--dev")
	host, _ := os.Hostname()
	if _, err := s.admin.CreateVM(ctx, forewarn.VMSpec{Name: "other", Addresses: []string{"127.0.0.2"}}); err != nil {
		t.Fatal(err)
	}
	e, err := s.admin.Operate(ctx, host, forewarn.OpRestart)
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + s.metaAddr + "/metadata/scheduledevents?api-version=2020-07-01"

	if code, body := call(t, from(t, "127.0.0.2"), "GET", url, ""); code != 200 || strings.Contains(body, e.ID) {
		t.Fatalf("other scope's GET: %d %s", code, body)
	}
	approval := `{"StartRequests":[{"EventId":"` + e.ID + `"}]}`
	code, body := call(t, from(t, "127.0.0.2"), "POST", url, approval)
	if code != 400 || !strings.Contains(body, e.ID) {
		t.Fatalf("other scope's approval: %d %s", code, body)
	}
	if got, err := s.admin.Event(ctx, e.ID); err != nil || got.Status != forewarn.Scheduled {
		t.Fatalf("a refused approval started the event: %+v, %v", got, err)
	}
	if code, body := call(t, from(t, "127.0.0.99"), "GET", url, ""); code != 403 || !strings.Contains(body, "127.0.0.99") {
		t.Fatalf("unknown address: %d %s", code, body)
	}
	// The event's own scope sees it and approves it.
	if code, body := call(t, http.DefaultClient, "POST", url, approval); code != 200 || body != "{}" {
		t.Fatalf("own approval: %d %s", code, body)
	}
	if got, err := s.admin.Event(ctx, e.ID); err != nil || got.Status != forewarn.Started || got.ApprovedBy != host {
		t.Fatalf("after approval: %+v, %v", got, err)
	}
}
