package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
)

// TestFastEngine: the fasthttp yardstick answers as the net/http one does
// a GET, a 304 and the two 400s.
func TestFastEngine(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveFast(ctx, ln, []byte(`{"DocumentIncarnation":3,"Events":[]}`), `"3"`, io.Discard) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	url := "http://" + ln.Addr().String() + "/metadata/scheduledevents?api-version=2020-07-01"
	for _, tc := range []struct {
		name    string
		url     string
		headers map[string]string
		status  int
		body    string
	}{
		{"document", url, map[string]string{"Metadata": "true"}, 200, `{"DocumentIncarnation":3,"Events":[]}`},
		{"not modified", url, map[string]string{"Metadata": "true", "If-None-Match": `"3"`}, 304, ""},
		{"no Metadata header", url, nil, 400, errMetadataHeader},
		{"bad api-version", url[:len(url)-10] + "1999-01-01", map[string]string{"Metadata": "true"}, 400, errAPIVersion},
	} {
		req, _ := http.NewRequest(http.MethodGet, tc.url, nil)
		for k, v := range tc.headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || string(body) != tc.body {
			t.Errorf("%s: %d %s, want %d %s", tc.name, resp.StatusCode, body, tc.status, tc.body)
		}
		if tc.status != 400 && resp.Header.Get("ETag") != `"3"` {
			t.Errorf("%s: ETag %q", tc.name, resp.Header.Get("ETag"))
		}
	}
}
