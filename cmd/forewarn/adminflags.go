package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
	"github.com/spf13/cobra"
)

// Where the admin commands find the server and its token.
const (
	serverEnv     = "FOREWARN_SERVER"
	tokenEnv      = "FOREWARN_TOKEN"
	caFileEnv     = "FOREWARN_CA_FILE"
	defaultServer = "http://127.0.0.1:8170"
)

// adminOptions are the persistent flags of the admin commands (scope, vm,
// maintenance): which admin API to talk to, with which token.
type adminOptions struct {
	server    string
	tokenFile string
	dataDir   string
	caFile    string
}

// addAdminFlags adds the admin flags to cmd and all its subcommands.
func addAdminFlags(cmd *cobra.Command, o *adminOptions) {
	f := cmd.PersistentFlags()
	f.StringVar(&o.server, "server", "", "admin API base URL (default $"+serverEnv+", else "+defaultServer+")")
	f.StringVar(&o.tokenFile, "token-file", "", "file of the admin token, read when $"+tokenEnv+" is not set (default <data-dir>/"+tokenFile+")")
	f.StringVar(&o.dataDir, "data-dir", "./forewarn-data", "the server's data directory, where the admin token is")
	f.StringVar(&o.caFile, "ca-file", "", "with an https --server: trust the CA certificates of this PEM file (default $"+caFileEnv+", else the system's)")
}

// withFleet runs fn with a client of the admin API, and makes a failure to
// reach the server say how to point at it.
func (o *adminOptions) withFleet(ctx context.Context, fn func(context.Context, forewarn.Fleet) error) error {
	token, from, err := o.token()
	if err != nil {
		return err
	}
	server := o.serverURL()
	hc, err := o.httpClient()
	if err != nil {
		return err
	}
	err = fn(ctx, admin.NewClient(server, token, admin.WithHTTPClient(hc)))
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("%w (is forewarn serve running at %s? set --server or %s)", err, server, serverEnv)
	case errors.Is(err, forewarn.ErrUnauthorized):
		return fmt.Errorf("%w (the token came from %s)", err, from)
	case errors.Is(err, admin.ErrNotAdminAPI):
		return fmt.Errorf("%w (the metadata listener? forewarn serve's admin API is at its --admin-addr, %s by default; set --server or %s)",
			err, strings.TrimPrefix(defaultServer, "http://"), serverEnv)
	}
	return err
}

// httpClient returns the HTTP client of the admin API: one that trusts
// the CA certificates of --ca-file (or $FOREWARN_CA_FILE) if given.
func (o *adminOptions) httpClient() (*http.Client, error) {
	hc := &http.Client{Timeout: 30 * time.Second}
	path := o.caFile
	if path == "" {
		path = strings.TrimSpace(os.Getenv(caFileEnv))
	}
	if path == "" {
		return hc, nil
	}
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--ca-file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--ca-file %s holds no PEM certificate", path)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	hc.Transport = transport
	return hc, nil
}

// serverURL returns --server, else $FOREWARN_SERVER, else the default.
func (o *adminOptions) serverURL() string {
	if o.server != "" {
		return o.server
	}
	if s := strings.TrimSpace(os.Getenv(serverEnv)); s != "" {
		return s
	}
	return defaultServer
}

// token returns $FOREWARN_TOKEN, else the content of --token-file, else
// that of <data-dir>/admin.token; from says which.
func (o *adminOptions) token() (token, from string, err error) {
	if t := strings.TrimSpace(os.Getenv(tokenEnv)); t != "" {
		return t, "$" + tokenEnv, nil
	}
	path := o.tokenFile
	if path == "" {
		path = filepath.Join(o.dataDir, tokenFile)
	}
	t, err := admin.ReadToken(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", fmt.Errorf("no admin token: %s is not set and %s does not exist; set %s, or point --data-dir or --token-file at the server's token",
			tokenEnv, path, tokenEnv)
	}
	return t, path, err
}
