package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"

	"github.com/forewarn/forewarn/admin"
	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/linkaddr"
)

// tokenFile is the admin token's file in the data directory.
const tokenFile = "admin.token"

func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %q is not debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format: %q is not text or json", format)
}

// token reads the admin token from --admin-token-file, or from the data
// directory, where it is generated (0600) at the first start.
func (o *serveOptions) token() (string, error) {
	if o.adminTokenFile != "" {
		return admin.ReadToken(o.adminTokenFile)
	}
	return admin.ReadOrCreateToken(filepath.Join(o.dataDir, tokenFile))
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

// ensureDefaultVM creates the host's VM at the first start and gives it its
// addresses: 127.0.0.1, ::1 and the metadata listener's own (SPEC.md 8).
func (o *serveOptions) ensureDefaultVM(ctx context.Context, fab *fabric.Fabric, metaAddr net.Addr, log *slog.Logger) error {
	host, err := os.Hostname()
	if err != nil {
		return fmt.Errorf("host name: %w", err)
	}
	addrs := []string{"127.0.0.1", "::1"}
	if ip, err := listenIP(metaAddr.String()); err == nil && ip.IsValid() && !ip.IsUnspecified() {
		if s := ip.Unmap().String(); s != "127.0.0.1" && s != "::1" {
			addrs = append(addrs, s)
		}
	}
	vm, err := fab.EnsureDefaultVM(ctx, host, addrs)
	if err != nil {
		return fmt.Errorf("default VM: %w", err)
	}
	if vm != nil {
		log.Info("default VM", "name", vm.Name, "scope", vm.Scope, "addresses", vm.Addresses)
	}
	return nil
}
