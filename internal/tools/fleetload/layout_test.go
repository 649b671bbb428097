package main

import (
	"errors"
	"net/netip"
	"testing"
)

func TestAddrRange(t *testing.T) {
	got, err := addrRange(mustAddr("127.1.0.254"), 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"127.1.0.254", "127.1.0.255", "127.1.1.0", "127.1.1.1"}
	for i, a := range got {
		if a.String() != want[i] {
			t.Errorf("address %d: got %v, want %s", i, a, want[i])
		}
	}
}

func TestAddrRangeRefuses(t *testing.T) {
	tests := []struct {
		base string
		n    int
	}{
		{"10.0.0.1", 1},         // not loopback
		{"::1", 1},              // not IPv4
		{"127.0.0.1", 1},        // the host's VM
		{"127.0.0.0", 2},        // reaches the host's VM
		{"127.255.255.250", 10}, // reaches the broadcast address
		{"127.255.255.255", 1},  // the broadcast address
		{"126.255.255.255", 1},  // below the prefix
	}
	for _, tt := range tests {
		if _, err := addrRange(mustAddr(tt.base), tt.n); !errors.Is(err, errAddrRange) {
			t.Errorf("%d from %s: got %v, want errAddrRange", tt.n, tt.base, err)
		}
	}
}

func TestLayoutNames(t *testing.T) {
	l := layout{prefix: "load", scopes: 3, vms: 10, updateDomains: 4, base: mustAddr("127.1.0.1")}
	if err := l.check(); err != nil {
		t.Fatal(err)
	}
	if got := l.vmName(23); got != "load-2-3" {
		t.Errorf("vmName(23) = %q, want load-2-3", got)
	}
	if got := l.scopeName(2); got != "load-2" {
		t.Errorf("scopeName(2) = %q", got)
	}
	if got := l.updateDomain(27); got != 3 {
		t.Errorf("updateDomain(27) = %d, want 3 (7th VM of 4 domains)", got)
	}
	addrs, _ := l.addrs()
	if len(addrs) != 30 || addrs[29] != mustAddr("127.1.0.30") {
		t.Errorf("addrs: %d, last %v", len(addrs), addrs[len(addrs)-1])
	}
}

func TestLayoutCheck(t *testing.T) {
	good := layout{prefix: "lp", scopes: 1, vms: 1, updateDomains: 5, base: mustAddr("127.2.0.1")}
	bad := map[string]func(*layout){
		"prefix":  func(l *layout) { l.prefix = "a b" },
		"empty":   func(l *layout) { l.prefix = "" },
		"scopes":  func(l *layout) { l.scopes = 0 },
		"vms":     func(l *layout) { l.vms = 0 },
		"domains": func(l *layout) { l.updateDomains = 21 },
		"base":    func(l *layout) { l.base = netip.Addr{} },
		"size":    func(l *layout) { l.scopes = 1 << 25 },
	}
	for name, spoil := range bad {
		l := good
		spoil(&l)
		if l.check() == nil {
			t.Errorf("%s: no error for %+v", name, l)
		}
	}
}
