package main

import (
	"bytes"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
)

func TestParseAnswer(t *testing.T) {
	full := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nEtag: \"7\"\r\ncontent-length: 9\r\n\r\n{\"a\":\"b\"}"
	for cut := range len(full) {
		if _, complete, err := parseAnswer([]byte(full[:cut])); complete || err != nil {
			t.Fatalf("cut at %d: complete %v, %v", cut, complete, err)
		}
	}
	a, complete, err := parseAnswer([]byte(full))
	if err != nil || !complete || a.status != 200 || a.etag != "7" || string(a.body) != `{"a":"b"}` {
		t.Fatalf("got %+v, %v, %v", a, complete, err)
	}
	if _, _, err := parseAnswer([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")); !errors.Is(err, errNoLength) {
		t.Errorf("chunked: %v", err)
	}
	for _, bad := range []string{"SSH-2.0\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 abc\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"} {
		if _, _, err := parseAnswer([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestReadAnswer reads what net/http writes, over a real connection, with
// a receive timestamp between the request and the read.
func TestReadAnswer(t *testing.T) {
	body := bytes.Repeat([]byte("x"), 3*firstBuffer) // makes the buffer grow
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"12"`)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	sent := time.Now()
	if _, err := conn.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	a, err := readAnswer(conn.(*net.TCPConn))
	if err != nil {
		t.Fatal(err)
	}
	if a.status != 200 || a.etag != "12" || !bytes.Equal(a.body, body) {
		t.Fatalf("got %d %q and %d bytes", a.status, a.etag, len(a.body))
	}
	if a.arrived.IsZero() {
		t.Skip("no receive timestamp on this system")
	}
	if a.arrived.Before(sent.Add(-time.Second)) || a.arrived.After(a.read) {
		t.Errorf("sent %v, arrived %v, read %v", sent, a.arrived, a.read)
	}
}
