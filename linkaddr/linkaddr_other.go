//go:build !linux

package linkaddr

import (
	"fmt"
	"net/netip"
)

// Assign is supported on Linux only.
func Assign(addr netip.Addr) (release func() error, err error) {
	return nil, fmt.Errorf("--assign-address is supported on Linux only")
}
