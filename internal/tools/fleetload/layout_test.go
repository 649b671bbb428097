package main

import (
	"bytes"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/forewarn/forewarn/fleetfile"
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

// TestFleetFile parses the fleet file with the parser `forewarn apply`
// uses, and finds every VM where the layout puts it.
func TestFleetFile(t *testing.T) {
	l := layout{prefix: "load", scopes: 3, vms: 7, updateDomains: 5, base: mustAddr("127.1.0.250")}
	var buf bytes.Buffer
	if err := writeFleet(&buf, l); err != nil {
		t.Fatal(err)
	}
	f, err := fleetfile.Parse("fleet.yaml", buf.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	addrs, _ := l.addrs()
	if len(f.Scopes) != 3 || len(f.VMs) != 0 {
		t.Fatalf("%d scopes and %d standalone VMs", len(f.Scopes), len(f.VMs))
	}
	for s, sc := range f.Scopes {
		if sc.Spec.Name != l.scopeName(s) || sc.Spec.UpdateDomains != 5 || len(sc.VMs) != 7 {
			t.Fatalf("scope %d: %+v with %d VMs", s, sc.Spec, len(sc.VMs))
		}
		for v, vm := range sc.VMs {
			i := s*l.vms + v
			spec := vm.Spec
			if spec.Name != l.vmName(i) || spec.Scope != l.scopeName(s) || *spec.UpdateDomain != l.updateDomain(i) ||
				len(spec.Addresses) != 1 || spec.Addresses[0] != addrs[i].String() {
				t.Errorf("VM %d: %+v", i, spec)
			}
		}
	}
}

func TestRunFleet(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run(t.Context(), []string{"fleet", "-scopes", "2", "-vms", "3"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if n := strings.Count(out.String(), "addresses:"); n != 6 {
		t.Errorf("%d VMs in\n%s", n, out.String())
	}
	for _, args := range [][]string{nil, {"nope"}, {"fleet", "-vms", "0"}, {"fleet", "extra"},
		{"fleet", "-base", "10.0.0.1"}, {"poll"}, {"longpoll", "-url", "http://127.0.0.1:1"}} {
		errs.Reset()
		if code := run(t.Context(), args, &out, &errs); code != 2 || errs.Len() == 0 {
			t.Errorf("%q: exit %d, stderr %q; want 2 and a message", args, code, errs.String())
		}
	}
}
