package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"
)

// serverSockets is what the kernel's socket table says of the server's side
// of the connections to one listening address: how many the server has
// accepted, how many hold bytes it has not read, and how many wait to be
// accepted. Every connection accepted and read, with nothing waiting,
// means the server has every request in hand.
type serverSockets struct {
	established int // connections to the address, accepted or not
	unread      int // of them, those with bytes the server has not read
	backlog     int // connections waiting in the listen queue
}

// TCP states in /proc/net/tcp (include/net/tcp_states.h).
const (
	tcpEstablished = "01"
	tcpListen      = "0A"
)

// procTable is the kernel's socket table for addr's family.
func procTable(addr netip.AddrPort) string {
	if addr.Addr().Is4() {
		return "/proc/net/tcp"
	}
	return "/proc/net/tcp6"
}

// readServerSockets counts the sockets of table (the format of
// /proc/net/tcp and /proc/net/tcp6) whose local end is addr.
func readServerSockets(table io.Reader, addr netip.AddrPort) (serverSockets, error) {
	var s serverSockets
	sc := bufio.NewScanner(table)
	sc.Scan() // the header
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 {
			continue
		}
		local, err := parseProcAddr(f[1])
		if err != nil {
			return s, fmt.Errorf("socket table line %q: %w", sc.Text(), err)
		}
		if local != addr {
			continue
		}
		_, rx, _ := strings.Cut(f[4], ":")
		queued, err := strconv.ParseUint(rx, 16, 64)
		if err != nil {
			return s, fmt.Errorf("socket table line %q: queue %q: %w", sc.Text(), f[4], err)
		}
		switch f[3] {
		case tcpEstablished:
			s.established++
			if queued > 0 {
				s.unread++
			}
		case tcpListen:
			s.backlog += int(queued)
		}
	}
	return s, sc.Err()
}

// parseProcAddr reads an address of /proc/net/tcp: the IP as 32-bit words
// in hex, each in the host's byte order, then ':' and the port in hex.
func parseProcAddr(s string) (netip.AddrPort, error) {
	ipHex, portHex, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, fmt.Errorf("address %q: no ':'", s)
	}
	port, err := strconv.ParseUint(portHex, 16, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("address %q: port: %w", s, err)
	}
	words, err := hex.DecodeString(ipHex)
	if err != nil || (len(words) != 4 && len(words) != 16) {
		return netip.AddrPort{}, fmt.Errorf("address %q: not 8 or 32 hex digits", s)
	}
	ip := make([]byte, len(words))
	for i := 0; i < len(words); i += 4 {
		binary.NativeEndian.PutUint32(ip[i:], binary.BigEndian.Uint32(words[i:]))
	}
	a, _ := netip.AddrFromSlice(ip)
	return netip.AddrPortFrom(a.Unmap(), uint16(port)), nil
}

// waitHeld waits until the server at addr has accepted at least want
// connections and read everything they sent, and nothing waits to be
// accepted; it reads the kernel's socket table every 100 ms, for at most
// limit.
func waitHeld(ctx context.Context, addr netip.AddrPort, want int, limit time.Duration) (serverSockets, error) {
	deadline := time.Now().Add(limit)
	for {
		s, err := readSocketFile(procTable(addr), addr)
		if err != nil {
			return s, err
		}
		if s.established >= want && s.unread == 0 && s.backlog == 0 {
			return s, nil
		}
		if time.Now().After(deadline) {
			return s, fmt.Errorf("after %v the server has %d of %d connections, %d with unread requests, %d not accepted",
				limit, s.established, want, s.unread, s.backlog)
		}
		select {
		case <-ctx.Done():
			return s, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// readSocketFile is readServerSockets of the file at path.
func readSocketFile(path string, addr netip.AddrPort) (serverSockets, error) {
	f, err := os.Open(path)
	if err != nil {
		return serverSockets{}, fmt.Errorf("read the socket table (-check-held=false to go without): %w", err)
	}
	defer f.Close()
	return readServerSockets(f, addr)
}
