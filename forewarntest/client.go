package forewarntest

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"time"
)

// Client returns an *http.Client whose requests the metadata endpoint
// attributes to the VM: they come from its address. It fails the test if
// the VM does not exist or has no address in 127.0.0.0/8 (one created
// through Fleet without addresses has one). Use it with the SDK:
//
//	client.New(client.WithEndpoint(srv.URL), client.WithHTTPClient(srv.Client("web-0")))
func (s *Server) Client(vm string) *http.Client {
	s.tb.Helper()
	addr, err := s.addressOf(vm)
	if err != nil {
		s.tb.Fatalf("forewarntest: Client(%q): %v", vm, err)
	}
	d := &net.Dialer{LocalAddr: net.TCPAddrFromAddrPort(netip.AddrPortFrom(addr, 0)), Timeout: 10 * time.Second}
	return &http.Client{Transport: s.transport(d)}
}

// addressOf returns the VM's first address in 127.0.0.0/8.
func (s *Server) addressOf(name string) (netip.Addr, error) {
	vm, err := s.fab.VM(s.ctx, name)
	if err != nil {
		return netip.Addr{}, err
	}
	for _, a := range vm.Addresses {
		if ip, err := netip.ParseAddr(a); err == nil && ip.Is4() && ip.IsLoopback() {
			return ip, nil
		}
	}
	return netip.Addr{}, fmt.Errorf("vm %q has no address in 127.0.0.0/8 to call from (its addresses: %v); "+
		"create it through Fleet without addresses, which gives it one, or give it one", name, vm.Addresses)
}

// transport returns a transport that dials with d, never through a proxy,
// whose idle connections close at cleanup.
func (s *Server) transport(d *net.Dialer) *http.Transport {
	t := &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 8, IdleConnTimeout: time.Minute}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.transports = append(s.transports, t)
	return t
}
