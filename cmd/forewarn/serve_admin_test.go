package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoopbackAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8170": true, "127.9.8.7:1": true, "[::1]:8170": true, "localhost:8170": true,
		"LOCALHOST:1": true, "[::ffff:127.0.0.1]:1": true,
		":8170": false, "0.0.0.0:8170": false, "[::]:8170": false, "10.0.0.1:8170": false,
		"169.254.169.254:80": false, "example.com:8170": false, "127.0.0.1": false,
	} {
		if got := loopbackAddr(addr); got != want {
			t.Errorf("loopbackAddr(%q) = %v, want %v", addr, got, want)
		}
	}
}

// TestServeRefusesAdminOffLoopback: the admin API on a network address
// needs TLS or --admin-insecure; serve says so before it listens.
func TestServeRefusesAdminOffLoopback(t *testing.T) {
	dir := t.TempDir()
	base := []string{"serve", "--data-dir", dir, "--metadata-addr", "127.0.0.1:0"}
	mustFail(t, append(base, "--admin-addr", "0.0.0.0:0"),
		"--admin-addr 0.0.0.0:0 is not a loopback address", "--admin-tls-cert", "--admin-insecure")
	mustFail(t, append(base, "--admin-addr", ":0"), "not a loopback address")
	mustFail(t, append(base, "--admin-tls-cert", "cert.pem"), "--admin-tls-cert and --admin-tls-key go together")
	mustFail(t, append(base, "--admin-addr", "127.0.0.1:0", "--admin-tls-cert", filepath.Join(dir, "none.pem"),
		"--admin-tls-key", filepath.Join(dir, "none.key")), "--admin-tls-cert", "none.pem", "no such file")
	o := newServeOptions()
	o.adminAddr, o.adminInsecure = "0.0.0.0:8170", true
	if err := o.checkAdmin(); err != nil {
		t.Errorf("--admin-insecure on 0.0.0.0: %v", err)
	}
}

// TestServeDashboardOrigin: --dashboard-origin takes scheme://host[:port]
// and refuses anything else before serve listens; through the real serve,
// a change made with the dashboard's cookie from that origin is accepted
// and one from another site is not.
func TestServeDashboardOrigin(t *testing.T) {
	base := []string{"serve", "--data-dir", t.TempDir(), "--metadata-addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0"}
	mustFail(t, append(base, "--dashboard-origin", "ops.example.com"), `--dashboard-origin "ops.example.com"`)
	mustFail(t, append(base, "--dashboard-origin", "https://ops.example.com/ui/"), `--dashboard-origin "https://ops.example.com/ui/"`)

	s := startServer(t, "--dashboard-origin", "https://ops.example.com")
	jar := signIn(t, s)
	for origin, want := range map[string]int{"https://ops.example.com": http.StatusCreated, "https://evil.example": http.StatusForbidden} {
		req, _ := http.NewRequest(http.MethodPost, s.adminURL+"/v1/scopes", strings.NewReader(`{"name":"s-`+strings.TrimPrefix(origin, "https://")[:3]+`"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", origin)
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		resp, err := (&http.Client{Jar: jar}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("a change with the cookie from %s = %d, want %d", origin, resp.StatusCode, want)
		}
	}
}

// signIn signs in to the dashboard of s and returns the cookie jar.
func signIn(t *testing.T, s *testServer) http.CookieJar {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm(s.adminURL+"/ui/login", url.Values{"token": {s.token}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in = %d, want 303", resp.StatusCode)
	}
	return jar
}

// TestAdminTLS serves the admin API over TLS and drives it with the CLI,
// trusting the certificate through --ca-file.
func TestAdminTLS(t *testing.T) {
	dir := t.TempDir()
	cert, key := writeSelfSigned(t, dir)
	s := startServer(t, "--admin-tls-cert", cert, "--admin-tls-key", key)
	server := "https://" + strings.TrimPrefix(s.adminURL, "http://")
	t.Setenv(tokenEnv, s.token)
	out := mustRun(t, "scope", "list", "--server", server, "--ca-file", cert)
	if !strings.Contains(out, "default") {
		t.Errorf("scope list over TLS:\n%s", out)
	}
	t.Setenv(caFileEnv, cert)
	mustRun(t, "scope", "list", "--server", server)
	t.Setenv(caFileEnv, "")
	mustFail(t, []string{"scope", "list", "--server", server}, "certificate")
	mustFail(t, []string{"scope", "list", "--server", server, "--ca-file", key}, "holds no PEM certificate")
	resp, err := http.Get(s.adminURL + "/v1/scopes") // plain HTTP to the TLS listener
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("plain HTTP to the TLS admin listener: %d, want 400", resp.StatusCode)
		}
	}
}

// writeSelfSigned writes a self-signed certificate for 127.0.0.1 and its
// key into dir, and returns their paths.
func writeSelfSigned(t *testing.T, dir string) (cert, key string) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "forewarn test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	cert, key = filepath.Join(dir, "admin.pem"), filepath.Join(dir, "admin.key")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, key
}

// TestAdminTokenKept: the generated token file is 0600, and neither the
// token nor a wrong one sent to the admin API shows in serve's log, even
// at debug level.
func TestAdminTokenKept(t *testing.T) {
	s := startServer(t, "--log-level", "debug")
	info, err := os.Stat(filepath.Join(s.dataDir, tokenFile))
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("%s has mode %v, want 0600", tokenFile, perm)
	}
	const wrong = "not-the-token-0123456789"
	for _, token := range []string{s.token, wrong} {
		req, err := http.NewRequest(http.MethodGet, s.adminURL+"/v1/scopes?bad=1", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	log := s.logs.String()
	for _, secret := range []string{s.token, wrong} {
		if strings.Contains(log, secret) {
			t.Errorf("serve's log shows a token:\n%s", log)
		}
	}
}
