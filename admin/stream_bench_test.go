package admin_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/internal/fabrictest"
)

// BenchmarkStreamInitialState measures what the dashboard waits for when it
// opens: the stream's whole state of 10,000 VMs in 1,000 scopes, read up to
// "ready", plain and gzipped (as browsers take it). The baseline is a
// handler that writes the same plain bytes from one buffer, so the ratio is
// the stream's own cost beyond moving the bytes.
func BenchmarkStreamInitialState(b *testing.B) {
	hub := admin.NewHub()
	for s := range 1000 {
		snap := &forewarn.ScopeSnapshot{Scope: &forewarn.Scope{Name: fmt.Sprintf("s%05d", s),
			Kind: forewarn.AvailabilitySet, UpdateDomains: 5, FaultDomains: 3, Incarnation: 1}}
		for v := range 10 {
			snap.VMs = append(snap.VMs, &forewarn.VM{Name: fmt.Sprintf("s%05d-%d", s, v), ID: "3f1c0a52-8a41-4f3c-9d55-2f0a8f6e6b0d",
				Scope: snap.Scope.Name, UpdateDomain: v % 5, FaultDomain: v % 3, Addresses: []string{fmt.Sprintf("127.1.%d.%d", s/250, v)},
				Priority: forewarn.Regular, State: forewarn.Running, CreatedAt: time.Now()})
		}
		hub.PublishScope(snap)
	}
	api := admin.NewServer(admin.Config{Fleet: fabrictest.New(b, fabric.Config{}), Token: testToken, Hub: hub})
	stream := httptest.NewServer(api)
	defer stream.Close()
	defer api.Shutdown()
	body := readUntilReady(b, stream.URL)
	baseline := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))
	defer baseline.Close()
	b.Run("stream", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			readUntilReady(b, stream.URL)
		}
	})
	b.Run("stream-gzip", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			readUntilReady(b, stream.URL, "gzip")
		}
	})
	b.Run("baseline", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			readUntilReady(b, baseline.URL)
		}
	})
}

// rawClient leaves Accept-Encoding to the caller and the answer as it
// comes.
var rawClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

// readUntilReady opens a stream, with the given Accept-Encoding, and
// returns what it sent up to "ready", decompressed.
func readUntilReady(b *testing.B, url string, acceptEncoding ...string) []byte {
	req, _ := http.NewRequest(http.MethodGet, url+"/v1/stream", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	for _, e := range acceptEncoding {
		req.Header.Add("Accept-Encoding", e)
	}
	resp, err := rawClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var r io.Reader = resp.Body
	if resp.Header.Get("Content-Encoding") == "gzip" {
		if r, err = gzip.NewReader(resp.Body); err != nil {
			b.Fatal(err)
		}
	}
	var out bytes.Buffer
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		out.Write(line)
		if bytes.HasPrefix(line, []byte("event: ready")) {
			line, _ = br.ReadSlice('\n') // its data line
			out.Write(line)
			out.WriteString("\n")
			return out.Bytes()
		}
		if err == io.EOF {
			b.Fatalf("stream ended before ready after %d bytes", out.Len())
		} else if err != nil && err != bufio.ErrBufferFull {
			b.Fatal(err)
		}
	}
}
