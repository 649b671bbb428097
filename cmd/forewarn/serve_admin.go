package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/netip"
	"path/filepath"
	"strings"

	"github.com/forewarn/forewarn/admin"
)

// checkAdmin refuses an admin listener that would take the admin token in
// clear text from the network: on an address other than loopback, the
// admin API needs TLS (--admin-tls-cert and --admin-tls-key), or
// --admin-insecure to serve it anyway (behind a TLS proxy, say).
func (o *serveOptions) checkAdmin() error {
	if (o.adminTLSCert == "") != (o.adminTLSKey == "") {
		return fmt.Errorf("--admin-tls-cert and --admin-tls-key go together: give both, or neither")
	}
	for _, origin := range o.dashOrigins {
		if err := admin.CheckOrigin(origin); err != nil {
			return fmt.Errorf("--dashboard-origin %q: %w", origin, err)
		}
	}
	if o.adminTLSCert != "" || o.adminInsecure {
		return nil
	}
	if !loopbackAddr(o.adminAddr) {
		return fmt.Errorf("--admin-addr %s is not a loopback address: the admin API would take its token in clear text "+
			"from the network; give --admin-tls-cert and --admin-tls-key, or --admin-insecure to serve it without TLS anyway",
			o.adminAddr)
	}
	return nil
}

// loopbackAddr reports whether a listen address (host:port) listens on
// loopback only: an IP in 127.0.0.0/8 or ::1, or "localhost". An empty
// host listens on every address.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// adminTLS returns the TLS configuration of the admin listener, or nil
// without --admin-tls-cert.
func (o *serveOptions) adminTLS() (*tls.Config, error) {
	if o.adminTLSCert == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(o.adminTLSCert, o.adminTLSKey)
	if err != nil {
		return nil, fmt.Errorf("--admin-tls-cert %s, --admin-tls-key %s: %w", o.adminTLSCert, o.adminTLSKey, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// listenAdmin opens the admin listener, with TLS if it is configured.
func (o *serveOptions) listenAdmin() (net.Listener, error) {
	cfg, err := o.adminTLS()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", o.adminAddr)
	if err != nil {
		return nil, fmt.Errorf("admin listener: %w", err)
	}
	if cfg != nil {
		ln = tls.NewListener(ln, cfg)
	}
	return ln, nil
}

// tokenFile is the admin token's file in the data directory.
const tokenFile = "admin.token"

// token reads the admin token from --admin-token-file, or from the data
// directory, where it is generated (0600) at the first start.
func (o *serveOptions) token() (string, error) {
	if o.adminTokenFile != "" {
		return admin.ReadToken(o.adminTokenFile)
	}
	return admin.ReadOrCreateToken(filepath.Join(o.dataDir, tokenFile))
}
