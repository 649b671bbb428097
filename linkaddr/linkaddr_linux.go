package linkaddr

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"

	"github.com/vishvananda/netlink"
)

// Assign adds addr to the loopback device unless it is already there. The
// release function it returns removes the address if Assign added it, and
// does nothing otherwise.
func Assign(addr netip.Addr) (release func() error, err error) {
	lo, err := netlink.LinkByName("lo")
	if err != nil {
		return nil, fmt.Errorf("find loopback device: %w", err)
	}
	bits := 32
	if addr.Is6() {
		bits = 128
	}
	a := &netlink.Addr{IPNet: &net.IPNet{IP: addr.AsSlice(), Mask: net.CIDRMask(bits, bits)}}
	err = netlink.AddrAdd(lo, a)
	switch {
	case errors.Is(err, syscall.EEXIST):
		return func() error { return nil }, nil
	case errors.Is(err, syscall.EPERM):
		return nil, fmt.Errorf("add %s to lo: permission denied (--assign-address needs root or CAP_NET_ADMIN)", addr)
	case err != nil:
		return nil, fmt.Errorf("add %s to lo: %w", addr, err)
	}
	return func() error {
		if err := netlink.AddrDel(lo, a); err != nil {
			return fmt.Errorf("remove %s from lo: %w", addr, err)
		}
		return nil
	}, nil
}
