package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"

	"github.com/forewarn/forewarn/imds"
	"github.com/forewarn/forewarn/linkaddr"
)

// listeners are serve's: the metadata endpoint's, the admin API's and,
// with --pprof-addr, the profiles' (nil without).
type listeners struct {
	metadata, admin, pprof net.Listener
	// release takes the metadata address away again if serve added it
	// (--assign-address); it does nothing otherwise.
	release func()
}

// listen opens serve's listeners. If one cannot be opened, it closes
// those it opened and releases the metadata address.
func (o *serveOptions) listen(log *slog.Logger) (_ *listeners, err error) {
	lns := &listeners{}
	if lns.metadata, lns.release, err = o.listenMetadata(log); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			lns.close()
			lns.release()
		}
	}()
	if lns.admin, err = o.listenAdmin(); err != nil {
		return nil, err
	}
	if lns.pprof, err = o.listenPprof(); err != nil {
		return nil, err
	}
	return lns, nil
}

// close closes the listeners, for when serve stops before it serves on
// them (the HTTP servers close them after).
func (lns *listeners) close() {
	for _, ln := range []net.Listener{lns.metadata, lns.admin, lns.pprof} {
		if ln != nil {
			ln.Close()
		}
	}
}

// servers pairs the listeners with what serves them: the metadata
// endpoint on fasthttp, the admin API and the profiles on net/http.
func (lns *listeners) servers(endpoint *imds.Server, adminAPI http.Handler, log *slog.Logger) servers {
	srvs := servers{
		{"metadata", lns.metadata, newMetadataServer(endpoint, log)},
		{"admin", lns.admin, newHTTPServer(adminAPI, log)},
	}
	if lns.pprof != nil {
		srvs = append(srvs, server{"pprof", lns.pprof, newHTTPServer(pprofHandler(), log)})
	}
	return srvs
}

// listenMetadata opens the metadata listener, first adding its address to
// the loopback device if asked to. release takes the address away again
// if serve added it.
func (o *serveOptions) listenMetadata(log *slog.Logger) (ln net.Listener, release func(), err error) {
	release = func() {}
	if o.assignAddress {
		addr, err := listenIP(o.metadataAddr)
		if err != nil || !addr.IsValid() || addr.IsUnspecified() {
			return nil, nil, fmt.Errorf("--assign-address needs an IP address in --metadata-addr, not %q", o.metadataAddr)
		}
		drop, err := linkaddr.Assign(addr)
		if err != nil {
			return nil, nil, err
		}
		release = func() {
			if err := drop(); err != nil {
				log.Warn("remove metadata address", "err", err)
			}
		}
	}
	ln, err = net.Listen("tcp", o.metadataAddr)
	if err != nil {
		release()
		return nil, nil, fmt.Errorf("metadata listener: %w", err)
	}
	return ln, release, nil
}

// listenIP returns the IP of a host:port, or the zero Addr if the host is
// empty (all addresses).
func listenIP(hostport string) (netip.Addr, error) {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil || host == "" {
		return netip.Addr{}, err
	}
	return netip.ParseAddr(host)
}
