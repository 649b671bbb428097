package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// procHex writes addr as /proc/net/tcp does: 32-bit words in the host's
// byte order, in hex, then the port.
func procHex(addr netip.AddrPort) string {
	ip := addr.Addr().AsSlice()
	var b strings.Builder
	for i := 0; i < len(ip); i += 4 {
		fmt.Fprintf(&b, "%08X", binary.NativeEndian.Uint32(ip[i:]))
	}
	return fmt.Sprintf("%s:%04X", b.String(), addr.Port())
}

func TestParseProcAddr(t *testing.T) {
	for _, s := range []string{"127.0.0.1:8169", "127.2.0.10:65535", "[::1]:80", "[fe80::1:2:3]:1"} {
		want := netip.MustParseAddrPort(s)
		got, err := parseProcAddr(procHex(want))
		if err != nil || got != want {
			t.Errorf("%s as %s: got %v, %v", s, procHex(want), got, err)
		}
	}
	for _, bad := range []string{"", "0100007F", "0100007F:XYZ", "01007F:1F91", "zz00007F:1F91"} {
		if _, err := parseProcAddr(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestReadServerSockets(t *testing.T) {
	server := netip.MustParseAddrPort("127.0.0.1:8169")
	other := netip.MustParseAddrPort("127.0.0.1:8170")
	client := netip.MustParseAddrPort("127.2.0.1:40000")
	line := func(local, remote netip.AddrPort, state string, rx int) string {
		return fmt.Sprintf("   0: %s %s %s 00000000:%08X 00:00000000 00000000     0        0 1 1 0 10 0",
			procHex(local), procHex(remote), state, rx)
	}
	table := strings.Join([]string{
		"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
		line(server, netip.AddrPort{}, tcpListen, 2), // 2 waiting to be accepted
		line(server, client, tcpEstablished, 0),
		line(server, client, tcpEstablished, 150), // not read
		line(server, client, tcpEstablished, 0),
		line(client, server, tcpEstablished, 0), // the client's end
		line(other, client, tcpEstablished, 99), // another listener
		line(server, client, "06", 0),           // TIME_WAIT
	}, "\n")
	got, err := readServerSockets(strings.NewReader(table), server)
	if err != nil {
		t.Fatal(err)
	}
	if want := (serverSockets{established: 3, unread: 1, backlog: 2}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if _, err := readServerSockets(strings.NewReader("header\n 0: nonsense x y z\n"), server); err == nil {
		t.Error("a bad line: no error")
	}
}

// TestWaitHeldKernel checks the socket table against the kernel: sockets
// waiting to be accepted, then accepted but unread, then read.
func TestWaitHeldKernel(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().(*net.TCPAddr).AddrPort()
	if _, err := readSocketFile(procTable(addr), addr); err != nil {
		t.Skip(err)
	}
	const n = 3
	for range n {
		c, err := net.Dial("tcp", addr.String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Write([]byte("hello")); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(want serverSockets) {
		t.Helper()
		var got serverSockets
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if got, err = readSocketFile(procTable(addr), addr); err != nil || got == want {
				break
			}
		}
		if err != nil || got != want {
			t.Fatalf("got %+v, %v; want %+v", got, err, want)
		}
	}
	expect(serverSockets{established: n, unread: n, backlog: n})
	if _, err := waitHeld(t.Context(), addr, n, 200*time.Millisecond); err == nil {
		t.Fatal("waitHeld: no error while nothing is accepted")
	}
	var accepted []net.Conn
	for range n {
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		accepted = append(accepted, c)
	}
	expect(serverSockets{established: n, unread: n})
	for _, c := range accepted {
		if _, err := io.ReadFull(c, make([]byte, 5)); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := waitHeld(t.Context(), addr, n, 5*time.Second); err != nil || got.established != n {
		t.Fatalf("waitHeld: %+v, %v", got, err)
	}
}

func TestProcTable(t *testing.T) {
	if procTable(netip.MustParseAddrPort("127.0.0.1:1")) != "/proc/net/tcp" ||
		procTable(netip.MustParseAddrPort("[::1]:1")) != "/proc/net/tcp6" {
		t.Error("wrong tables")
	}
	if _, err := readSocketFile("/nonexistent/tcp", netip.AddrPort{}); err == nil || !strings.Contains(err.Error(), "-check-held=false") {
		t.Errorf("missing table: %v", err)
	}
}
