package admin_test

import (
	"bufio"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/forewarn/forewarn/admin"
	"github.com/forewarn/forewarn/fabric"
	"github.com/forewarn/forewarn/internal/fabrictest"
)

// TestUIStaticETag: the dashboard's files carry an ETag, so that a browser
// revalidates them with a 304 instead of fetching them again.
func TestUIStaticETag(t *testing.T) {
	env := mustStartUI(t, testToken, false)
	first := env.do(t, "GET", "/ui/static/app.js", nil, nil)
	etag := first.header.Get("ETag")
	if first.status != http.StatusOK || !strings.HasPrefix(etag, `"`) {
		t.Fatalf("GET /ui/static/app.js = %d with ETag %q, want 200 and a strong ETag", first.status, etag)
	}
	if again := env.do(t, "GET", "/ui/static/app.js", nil, nil, "If-None-Match", etag); again.status != http.StatusNotModified {
		t.Errorf("GET with If-None-Match %s = %d, want 304", etag, again.status)
	}
	if other := env.do(t, "GET", "/ui/static/app.css", nil, nil); other.header.Get("ETag") == etag {
		t.Errorf("app.css has app.js's ETag %s", etag)
	}
}

// TestUINoTokenSignIn: a server without a token says so on the form,
// rather than that the token given is wrong.
func TestUINoTokenSignIn(t *testing.T) {
	env := mustStartUI(t, "", false)
	a := env.do(t, "POST", "/ui/login", url.Values{"token": {"anything"}}, nil, sameOrigin...)
	if a.status != http.StatusUnauthorized || !strings.Contains(a.body, "no admin token") {
		t.Errorf("sign-in on a server without a token = %d %q, want 401 saying it has none", a.status, a.body)
	}
}

// TestStreamGzip: the stream is gzipped for a client that takes gzip, as
// browsers do, and plain for one that does not.
func TestStreamGzip(t *testing.T) {
	api := admin.NewServer(admin.Config{Fleet: fabrictest.New(t, fabric.Config{}), Token: testToken, Hub: admin.NewHub()})
	server := newStreamServer(t, api)
	raw := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, c := range []struct {
		accept string
		gzip   bool
	}{{"gzip, deflate, br, zstd", true}, {"", false}, {"gzip;q=0", false}} {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", server+"/v1/stream", nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		if c.accept != "" {
			req.Header.Set("Accept-Encoding", c.accept)
		}
		resp, err := raw.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body io.Reader = resp.Body
		if got := resp.Header.Get("Content-Encoding") == "gzip"; got != c.gzip {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q, want gzip %v", c.accept, resp.Header.Get("Content-Encoding"), c.gzip)
		} else if got {
			if body, err = gzip.NewReader(resp.Body); err != nil {
				t.Fatalf("Accept-Encoding %q: %v", c.accept, err)
			}
		}
		if !readsReady(body) {
			t.Errorf("Accept-Encoding %q: no ready event in the stream", c.accept)
		}
		resp.Body.Close()
	}
}

// newStreamServer serves api on loopback, ending its streams first when
// the test ends.
func newStreamServer(t *testing.T, api *admin.Server) string {
	t.Helper()
	server := httptest.NewServer(api)
	t.Cleanup(server.Close)
	t.Cleanup(api.Shutdown) // runs first
	return server.URL
}

// readsReady reports whether a stream reaches its ready event.
func readsReady(r io.Reader) bool {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if sc.Text() == "event: ready" {
			return true
		}
	}
	return false
}

// TestUICookieSecureBehindProxy: behind a TLS-terminating proxy that says
// so, the session cookie is Secure, as it is over serve's own TLS.
func TestUICookieSecureBehindProxy(t *testing.T) {
	env := mustStartUI(t, testToken, false)
	for _, c := range []struct {
		proto  string
		secure bool
	}{{"https", true}, {"HTTPS", true}, {"http", false}, {"", false}} {
		header := append([]string{"X-Forwarded-Proto", c.proto}, sameOrigin...)
		a := env.do(t, "POST", "/ui/login", url.Values{"token": {testToken}}, nil, header...)
		cookie := sessionCookieOf(t, a)
		if cookie == nil || cookie.Secure != c.secure {
			t.Errorf("X-Forwarded-Proto %q: cookie %q, want Secure %v", c.proto, a.header.Get("Set-Cookie"), c.secure)
		}
	}
}
