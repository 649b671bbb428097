package main

import (
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"strings"
)

// layout is the fleet a load runs against: scopes of VMs named and
// addressed by their index, so that the fleet file (fleetload fleet) and
// the load agree on every VM without asking the server. VM i is the
// (i % vms)-th VM of scope i / vms, calls from base + i, and sits in
// update domain (i % vms) % updateDomains.
type layout struct {
	prefix        string
	scopes        int
	vms           int // per scope
	updateDomains int
	base          netip.Addr
}

// register adds the layout's flags to fs, with l's values as defaults.
func (l *layout) register(fs *flag.FlagSet) {
	fs.StringVar(&l.prefix, "prefix", l.prefix, "name prefix: scopes are PREFIX-S, VMs PREFIX-S-V")
	fs.IntVar(&l.scopes, "scopes", l.scopes, "scopes in the fleet")
	fs.IntVar(&l.vms, "vms", l.vms, "VMs per scope")
	fs.IntVar(&l.updateDomains, "update-domains", l.updateDomains, "update domains per scope (1 to 20)")
	fs.Func("base", "the first VM's address, in 127.0.0.0/8 (default "+l.base.String()+"); VM i calls from base+i",
		func(s string) error {
			a, err := netip.ParseAddr(s)
			l.base = a
			return err
		})
}

// check tells what is wrong with the layout, if anything.
func (l layout) check() error {
	switch {
	case l.prefix == "" || strings.Trim(l.prefix, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != "":
		return fmt.Errorf("-prefix %q: want letters, digits, '-', '_' or '.'", l.prefix)
	case l.scopes < 1:
		return fmt.Errorf("-scopes %d: want at least 1", l.scopes)
	case l.vms < 1:
		return fmt.Errorf("-vms %d: want at least 1", l.vms)
	case l.updateDomains < 1 || l.updateDomains > 20:
		return fmt.Errorf("-update-domains %d: want 1 to 20", l.updateDomains)
	}
	_, err := addrRange(l.base, l.size())
	return err
}

// size is the number of VMs.
func (l layout) size() int { return l.scopes * l.vms }

// scopeName names scope s.
func (l layout) scopeName(s int) string { return fmt.Sprintf("%s-%d", l.prefix, s) }

// vmName names VM i.
func (l layout) vmName(i int) string { return fmt.Sprintf("%s-%d-%d", l.prefix, i/l.vms, i%l.vms) }

// updateDomain is VM i's update domain in its scope.
func (l layout) updateDomain(i int) int { return (i % l.vms) % l.updateDomains }

// addrs returns every VM's address, VM i's at index i.
func (l layout) addrs() ([]netip.Addr, error) { return addrRange(l.base, l.size()) }

// loopback is 127.0.0.0/8, where every address reaches the local host on
// Linux without being configured: a load can call from thousands of them.
var loopback = netip.MustParsePrefix("127.0.0.0/8")

// Addresses a VM may not have: the host's own VM owns 127.0.0.1, and the
// last address of the prefix is its broadcast.
var (
	hostAddr      = netip.MustParseAddr("127.0.0.1")
	broadcastAddr = netip.MustParseAddr("127.255.255.255")
)

// errAddrRange is wrapped by addrRange's errors.
var errAddrRange = errors.New("VM addresses must stay in 127.0.0.0/8, apart from 127.0.0.1 and 127.255.255.255")

// addrRange returns the n consecutive IPv4 addresses from base, all in
// 127.0.0.0/8 and none of them 127.0.0.1 or 127.255.255.255.
func addrRange(base netip.Addr, n int) ([]netip.Addr, error) {
	if !base.Is4() || !loopback.Contains(base) {
		return nil, fmt.Errorf("base address %v: %w", base, errAddrRange)
	}
	first := addrUint(base)
	last := uint64(first) + uint64(max(n, 1)) - 1
	switch {
	case last >= uint64(addrUint(broadcastAddr)):
		return nil, fmt.Errorf("%d addresses from %v reach %v: %w", n, base, broadcastAddr, errAddrRange)
	case uint64(first) <= uint64(addrUint(hostAddr)) && last >= uint64(addrUint(hostAddr)):
		return nil, fmt.Errorf("%d addresses from %v take %v: %w", n, base, hostAddr, errAddrRange)
	}
	out := make([]netip.Addr, n)
	for i := range out {
		v := first + uint32(i)
		out[i] = netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
	}
	return out, nil
}

// addrUint is an IPv4 address as a number.
func addrUint(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// defaultPollLayout is the fleet of the poll load: 2,000 VMs in 200
// availability sets of 10, two VMs per update domain, from 127.1.0.1.
func defaultPollLayout() layout {
	return layout{prefix: "load", scopes: 200, vms: 10, updateDomains: 5, base: mustAddr("127.1.0.1")}
}
