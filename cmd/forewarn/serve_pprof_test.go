package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestServePprof checks that --pprof-addr serves the profiles, and that
// without it no profile is served on the other listeners.
func TestServePprof(t *testing.T) {
	s := startServer(t, "--pprof-addr", "127.0.0.1:0")
	i := s.logs.await(t, 0, s.stopped, `"msg":"listening"`, `"api":"pprof"`)
	line, _, _ := s.logs.next(i-1, s.stopped)
	var rec struct{ Addr string }
	if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.Addr == "" {
		t.Fatalf("pprof listening line %q: %v", line, err)
	}
	resp, err := http.Get("http://" + rec.Addr + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "goroutine profile") {
		t.Fatalf("GET /debug/pprof/goroutine = %d:\n%.300s", resp.StatusCode, body)
	}
	resp, err = http.Get(s.adminURL + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		t.Errorf("the admin API serves the profiles")
	}
}
