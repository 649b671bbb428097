//go:build linux

package linkaddr

import (
	"net"
	"net/netip"
	"os"
	"testing"
)

// hasAddr reports whether an interface of the host has addr.
func hasAddr(t *testing.T, addr netip.Addr) bool {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil && p.Addr() == addr {
			return true
		}
	}
	return false
}

func TestAssignAndRelease(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	addr := netip.MustParseAddr("127.77.0.1") // not covered by lo's 127.0.0.1/8 entry as an own address
	release, err := Assign(addr)
	if err != nil {
		t.Fatalf("assign: %v", err)
	}
	if !hasAddr(t, addr) {
		t.Fatal("address not on the device after Assign")
	}
	// A second Assign adopts it, and its release leaves it in place.
	adopt, err := Assign(addr)
	if err != nil {
		t.Fatalf("assign again: %v", err)
	}
	if err := adopt(); err != nil || !hasAddr(t, addr) {
		t.Fatalf("releasing an adopted address removed it (%v)", err)
	}
	if err := release(); err != nil {
		t.Fatalf("release: %v", err)
	}
	if hasAddr(t, addr) {
		t.Fatal("address still there after release")
	}
}
