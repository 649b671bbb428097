package admin_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
	"github.com/forewarn/forewarn/dashboard"
	"github.com/forewarn/forewarn/fabric"
)

// wantCSP is the dashboard's Content-Security-Policy, as the contract
// states it.
const wantCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// uiEnv is the admin API over the real control plane, driven as a browser
// drives the dashboard: redirects are not followed and cookies are sent by
// hand. The server logs at debug level into logs, which must never hold
// the token. store counts the fleet's transactions and changes after the
// setup.
type uiEnv struct {
	fab    *fabric.Fabric
	store  *spyStore
	server *httptest.Server
	client *http.Client
	token  string
	logs   *syncBuffer
}

// syncBuffer is a bytes.Buffer that the server's handlers may write to
// at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// mustStartUI starts the admin API with token over plain HTTP, or over TLS,
// with a scope "web" holding the VM web-0.
func mustStartUI(t *testing.T, token string, tls bool) *uiEnv {
	t.Helper()
	env := &uiEnv{token: token, logs: &syncBuffer{}}
	env.fab, env.store = spiedFabric(t, fabric.Config{})
	log := slog.New(slog.NewTextHandler(env.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	api := admin.NewServer(admin.Config{Fleet: env.fab, Token: token, Logger: log, Version: "v9.9.9-test"})
	if tls {
		env.server = httptest.NewTLSServer(api)
	} else {
		env.server = httptest.NewServer(api)
	}
	t.Cleanup(env.server.Close)
	env.client = env.server.Client()
	env.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	ctx := t.Context()
	must(env.fab.CreateScope(ctx, forewarn.ScopeSpec{Name: "web", UpdateDomains: 2}))(t)
	must(env.fab.CreateVM(ctx, forewarn.VMSpec{Name: "web-0", Scope: "web"}))(t)
	env.store.reset()
	t.Cleanup(func() { env.checkLogs(t) })
	return env
}

// checkLogs fails the test if the server logged the token.
func (env *uiEnv) checkLogs(t *testing.T) {
	t.Helper()
	if env.token != "" && strings.Contains(env.logs.String(), env.token) {
		t.Errorf("the server logged the token:\n%s", env.logs)
	}
}

// do sends a request: body is sent as a form if it is a url.Values, as
// JSON otherwise (a string as it is); header holds name, value pairs.
func (env *uiEnv) do(t *testing.T, method, target string, body any, cookie *http.Cookie, header ...string) answer {
	t.Helper()
	var r io.Reader
	contentType := ""
	switch b := body.(type) {
	case nil:
	case url.Values:
		r, contentType = strings.NewReader(b.Encode()), "application/x-www-form-urlencoded"
	case string:
		r, contentType = strings.NewReader(b), "application/json"
	default:
		t.Fatalf("body of type %T", body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, env.server.URL+target, r)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := env.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, target, err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

// sameOrigin are the headers Chromium sends with the page's own fetch.
var sameOrigin = []string{"Sec-Fetch-Site", "same-origin"}

// signIn posts the right token to the sign-in form and returns the
// session cookie.
func (env *uiEnv) signIn(t *testing.T) *http.Cookie {
	t.Helper()
	a := env.do(t, "POST", "/ui/login", url.Values{"token": {env.token}}, nil, sameOrigin...)
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/ui/" {
		t.Fatalf("sign-in = %d to %q, want 303 to /ui/; body %s", a.status, a.header.Get("Location"), a.body)
	}
	c := sessionCookieOf(t, a)
	if c == nil || c.Value == "" {
		t.Fatalf("sign-in set no session cookie: %q", a.header.Values("Set-Cookie"))
	}
	return c
}

// sessionCookieOf returns the forewarn_session cookie an answer sets, or
// nil.
func sessionCookieOf(t *testing.T, a answer) *http.Cookie {
	t.Helper()
	var found *http.Cookie
	for _, line := range a.header.Values("Set-Cookie") {
		c, err := http.ParseSetCookie(line)
		if err != nil {
			t.Fatalf("Set-Cookie %q: %v", line, err)
		}
		if c.Name != "forewarn_session" {
			t.Errorf("unexpected cookie %q", line)
			continue
		}
		if found != nil {
			t.Errorf("two session cookies set: %q", a.header.Values("Set-Cookie"))
		}
		found = c
	}
	return found
}

// errorCode returns the message and code of a JSON error answer.
func errorCode(t *testing.T, a answer) (msg, code string) {
	t.Helper()
	if ct := a.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type = %q, want application/json; body %s", ct, a.body)
	}
	var body struct{ Error, Code string }
	if err := json.Unmarshal([]byte(a.body), &body); err != nil || body.Error == "" {
		t.Fatalf("answer %d is not a JSON error: %q (%v)", a.status, a.body, err)
	}
	return body.Error, body.Code
}

// checkPageHeaders checks the headers of a dashboard page.
func checkPageHeaders(t *testing.T, what string, a answer, cache string) {
	t.Helper()
	for name, want := range map[string]string{
		"Content-Security-Policy": wantCSP,
		"X-Frame-Options":         "DENY",
		"X-Content-Type-Options":  "nosniff",
		"Cache-Control":           cache,
	} {
		if got := a.header.Get(name); got != want {
			t.Errorf("%s: %s = %q, want %q", what, name, got, want)
		}
	}
}

func TestUIRedirects(t *testing.T) {
	env := mustStartUI(t, testToken, false)
	a := env.do(t, "GET", "/ui", nil, nil)
	if a.status != http.StatusMovedPermanently || a.header.Get("Location") != "/ui/" {
		t.Errorf("GET /ui = %d to %q, want 301 to /ui/", a.status, a.header.Get("Location"))
	}
	a = env.do(t, "GET", "/ui/", nil, nil)
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/ui/login" {
		t.Errorf("GET /ui/ without a cookie = %d to %q, want 303 to /ui/login", a.status, a.header.Get("Location"))
	}
	if strings.Contains(a.body, "<script") {
		t.Errorf("GET /ui/ without a cookie sent the page:\n%s", a.body)
	}
}

// loginForm lists the tags of the sign-in form the contract names: each
// tag must have every attribute given, in any order.
var loginForm = []struct {
	tag   string
	attrs []string
}{
	{"form", []string{`method="post"`, `action="/ui/login"`}},
	{"label", []string{`for="token"`}},
	{"input", []string{`id="token"`, `name="token"`, `type="password"`, `autocomplete="current-password"`}},
	{"button", []string{`type="submit"`}},
}

// checkLoginForm fails the test unless page is the sign-in form.
func checkLoginForm(t *testing.T, what, page string) {
	t.Helper()
	for _, want := range loginForm {
		found := false
		for _, tag := range regexp.MustCompile(`<`+want.tag+`\b[^>]*>`).FindAllString(page, -1) {
			found = found || !slices.ContainsFunc(want.attrs, func(a string) bool { return !strings.Contains(tag, a) })
		}
		if !found {
			t.Errorf("%s: no <%s> with %s in:\n%s", what, want.tag, want.attrs, page)
		}
	}
	if !strings.Contains(page, ">Sign in</button>") {
		t.Errorf("%s: no Sign in button", what)
	}
}

func TestUILoginForm(t *testing.T) {
	env := mustStartUI(t, testToken, false)
	a := env.do(t, "GET", "/ui/login", nil, nil)
	if a.status != http.StatusOK || !strings.HasPrefix(a.header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /ui/login = %d %q, want 200 HTML", a.status, a.header.Get("Content-Type"))
	}
	checkPageHeaders(t, "GET /ui/login", a, "no-store")
	checkLoginForm(t, "GET /ui/login", a.body)
	for _, want := range []string{`<link rel="stylesheet" href="/ui/login.css">`, "v9.9.9-test"} {
		if !strings.Contains(a.body, want) {
			t.Errorf("the sign-in form has no %s", want)
		}
	}
	if strings.Contains(a.body, "login-error") || strings.Contains(a.body, `role="alert"`) {
		t.Errorf("the sign-in form shows an error before any attempt:\n%s", a.body)
	}
	// No URL in the page carries a token, and no script runs.
	for _, m := range regexp.MustCompile(`(?i)(href|src|action)="([^"]*)"`).FindAllStringSubmatch(a.body, -1) {
		if strings.Contains(m[2], "?") || strings.Contains(strings.ToLower(m[2]), "token") {
			t.Errorf("the sign-in form has the URL %s=%q", m[1], m[2])
		}
	}
	if strings.Contains(a.body, "<script") || strings.Contains(a.body, "style=") {
		t.Errorf("the sign-in form has inline script or style, which the CSP blocks")
	}

	css := env.do(t, "GET", "/ui/login.css", nil, nil)
	if css.status != http.StatusOK || !strings.HasPrefix(css.header.Get("Content-Type"), "text/css") || css.body == "" {
		t.Errorf("GET /ui/login.css = %d %q (%d bytes), want 200 CSS", css.status, css.header.Get("Content-Type"), len(css.body))
	}
	checkPageHeaders(t, "GET /ui/login.css", css, "no-cache")
}

// TestUILoginWrongToken: a wrong or empty token gets the form again, with
// status 401, an alert and no cookie; neither token reaches the log.
func TestUILoginWrongToken(t *testing.T) {
	env := mustStartUI(t, testToken, false)
	for _, tc := range []struct{ token, msg string }{
		{"wrong-token-123", "not the admin token"},
		{testToken[:4], "not the admin token"},
		{testToken + "x", "not the admin token"},
		{"", "Enter the admin token"},
		{"   ", "Enter the admin token"},
	} {
		a := env.do(t, "POST", "/ui/login", url.Values{"token": {tc.token}}, nil, sameOrigin...)
		if a.status != http.StatusUnauthorized {
			t.Errorf("token %q: %d to %q, want 401", tc.token, a.status, a.header.Get("Location"))
			continue
		}
		if c := a.header.Values("Set-Cookie"); len(c) > 0 {
			t.Errorf("token %q: Set-Cookie %q", tc.token, c)
		}
		checkPageHeaders(t, "refused sign-in", a, "no-store")
		alert := regexp.MustCompile(`<p id="login-error" role="alert">([^<]*)</p>`).FindStringSubmatch(a.body)
		if alert == nil || !strings.Contains(alert[1], tc.msg) {
			t.Errorf("token %q: want the alert %q in the form:\n%s", tc.token, tc.msg, a.body)
		}
		checkLoginForm(t, fmt.Sprintf("token %q", tc.token), a.body)
		if strings.TrimSpace(tc.token) != "" && strings.Contains(a.body, tc.token) {
			t.Errorf("token %q: the page shows the token back", tc.token)
		}
		if strings.TrimSpace(tc.token) != "" && strings.Contains(env.logs.String(), tc.token) {
			t.Errorf("token %q: the log has it:\n%s", tc.token, env.logs)
		}
	}
	// Nor does the token in the URL sign in: it belongs in the body only.
	q := "?token=" + url.QueryEscape(testToken)
	for _, method := range []string{"GET", "POST"} {
		a := env.do(t, method, "/ui/login"+q, url.Values{}, nil, sameOrigin...)
		if a.status == http.StatusSeeOther || len(a.header.Values("Set-Cookie")) > 0 {
			t.Errorf("%s /ui/login with the token in the URL = %d, Set-Cookie %q; want no sign-in",
				method, a.status, a.header.Values("Set-Cookie"))
		}
	}
	if n, _ := env.store.counts(); n != 0 {
		t.Errorf("the fleet made %d transactions, want none", n)
	}
}

// TestUILogin signs in over plain HTTP and over TLS and uses the cookie.
func TestUILogin(t *testing.T) {
	for _, tls := range []bool{false, true} {
		t.Run(map[bool]string{false: "http", true: "tls"}[tls], func(t *testing.T) {
			env := mustStartUI(t, testToken, tls)
			before := time.Now()
			a := env.do(t, "POST", "/ui/login", url.Values{"token": {"  " + testToken + "\n"}}, nil, sameOrigin...)
			if a.status != http.StatusSeeOther || a.header.Get("Location") != "/ui/" {
				t.Fatalf("sign-in = %d to %q, want 303 to /ui/; body %s", a.status, a.header.Get("Location"), a.body)
			}
			c := sessionCookieOf(t, a)
			if c == nil {
				t.Fatalf("no session cookie set: %q", a.header.Values("Set-Cookie"))
			}
			if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" || c.Secure != tls || c.Domain != "" {
				t.Errorf("cookie %q: want HttpOnly, SameSite=Strict, Path=/, no Domain, Secure %v", a.header.Get("Set-Cookie"), tls)
			}
			if lo, hi := before.Add(12*time.Hour-2*time.Second), time.Now().Add(12*time.Hour+time.Second); c.Expires.Before(lo) || c.Expires.After(hi) {
				t.Errorf("cookie expires %v, want 12 h from now (%v)", c.Expires, before.Add(12*time.Hour))
			}
			if strings.Contains(c.Value, testToken) {
				t.Errorf("the cookie holds the token: %q", c.Value)
			}

			page := env.do(t, "GET", "/ui/", nil, c)
			if page.status != http.StatusOK || page.header.Get("Content-Type") != "text/html; charset=utf-8" {
				t.Fatalf("GET /ui/ signed in = %d %q, want 200 HTML", page.status, page.header.Get("Content-Type"))
			}
			checkPageHeaders(t, "GET /ui/", page, "no-store")
			if want, _ := fs.ReadFile(dashboard.Static, "index.html"); page.body != string(want) {
				t.Errorf("GET /ui/ is not static/index.html:\n%s", page.body)
			}
			if a := env.do(t, "GET", "/ui/login", nil, c); a.status != http.StatusSeeOther || a.header.Get("Location") != "/ui/" {
				t.Errorf("GET /ui/login signed in = %d to %q, want 303 to /ui/", a.status, a.header.Get("Location"))
			}
			if a := env.do(t, "GET", "/v1/vms", nil, c); a.status != http.StatusOK || !strings.Contains(a.body, `"web-0"`) {
				t.Errorf("GET /v1/vms with the cookie = %d %s, want 200 with web-0", a.status, a.body)
			}
		})
	}
}

// TestUICookieChangesNeedSameOrigin: a change made with the cookie passes
// from the page's own origin and is refused, changing nothing, from
// another site.
func TestUICookieChangesNeedSameOrigin(t *testing.T) {
	env := mustStartUI(t, testToken, false)
	c := env.signIn(t)
	before := env.store.changes()
	a := env.do(t, "POST", "/v1/vms/web-0/restart", nil, c, sameOrigin...)
	if a.status != http.StatusCreated {
		t.Fatalf("same-origin restart with the cookie = %d %s, want 201", a.status, a.body)
	}
	env.expectNoChange(t, before+1)
	a = env.do(t, "POST", "/v1/scopes", `{"name":"api"}`, c, "Origin", env.server.URL)
	if a.status != http.StatusCreated {
		t.Fatalf("POST with the page's own Origin = %d %s, want 201", a.status, a.body)
	}
	before = env.store.changes()

	foreign := [][]string{
		{"Sec-Fetch-Site", "cross-site"},
		{"Sec-Fetch-Site", "same-site"}, // a sibling subdomain is another origin
		{"Origin", "http://evil.example"},
		{"Origin", "null"},
		{"Sec-Fetch-Site", "cross-site", "Origin", env.server.URL},
	}
	changes := []struct{ method, path, body string }{
		{"POST", "/v1/vms/web-0/redeploy", ""},
		{"POST", "/v1/scopes", `{"name":"evil"}`},
		{"DELETE", "/v1/vms/web-0", ""},
		{"POST", "/v1/campaigns", `{"type":"Reboot","all":true}`},
		{"POST", "/v1/chaos", `{"status":500,"fraction":1,"for":"1m"}`},
		{"PUT", "/v1/scopes/web", `{}`},
	}
	for _, h := range foreign {
		for _, r := range changes {
			var body any
			if r.body != "" {
				body = r.body
			}
			a := env.do(t, r.method, r.path, body, c, h...)
			if a.status != http.StatusForbidden {
				t.Errorf("%s %s with the cookie and %q = %d %s, want 403", r.method, r.path, h, a.status, a.body)
				continue
			}
			if _, code := errorCode(t, a); code != "forbidden" {
				t.Errorf("%s %s with %q: code %q, want forbidden", r.method, r.path, h, code)
			}
		}
	}
	env.expectNoChange(t, before)
	if _, err := env.fab.Scope(t.Context(), "evil"); err == nil {
		t.Errorf("a cross-site POST created scope evil")
	}
	must(env.fab.VM(t.Context(), "web-0"))(t) // not deleted
	// Reading needs no origin check: the browser keeps another site from
	// reading the answer.
	if a := env.do(t, "GET", "/v1/scopes", nil, c, "Sec-Fetch-Site", "cross-site"); a.status != http.StatusOK {
		t.Errorf("GET with the cookie from another site = %d, want 200", a.status)
	}
}

// expectNoChange fails the test if the fleet changed since before.
func (env *uiEnv) expectNoChange(t *testing.T, before int) {
	t.Helper()
	if changes := env.store.changes(); changes != before {
		t.Errorf("fleet changed: %d changes, want %d", changes, before)
	}
}

// TestUILoginCSRF: another site cannot sign a browser in (login CSRF),
// nor out.
func TestUILoginCSRF(t *testing.T) {
	env := mustStartUI(t, testToken, false)
	for _, h := range [][]string{{"Sec-Fetch-Site", "cross-site"}, {"Origin", "http://evil.example"}} {
		a := env.do(t, "POST", "/ui/login", url.Values{"token": {testToken}}, nil, h...)
		if a.status != http.StatusForbidden || len(a.header.Values("Set-Cookie")) > 0 {
			t.Errorf("cross-site sign-in with %q = %d, Set-Cookie %q; want 403 and no cookie",
				h, a.status, a.header.Values("Set-Cookie"))
		}
	}
	c := env.signIn(t)
	a := env.do(t, "POST", "/ui/logout", nil, c, "Sec-Fetch-Site", "cross-site")
	if a.status != http.StatusForbidden || len(a.header.Values("Set-Cookie")) > 0 {
		t.Errorf("cross-site sign-out = %d, Set-Cookie %q; want 403", a.status, a.header.Values("Set-Cookie"))
	}
	if a := env.do(t, "GET", "/v1/vms", nil, c); a.status != http.StatusOK {
		t.Errorf("after a refused cross-site sign-out, the cookie gets %d, want 200", a.status)
	}
}

func TestUILogout(t *testing.T) {
	env := mustStartUI(t, testToken, false)
	c := env.signIn(t)
	other := env.signIn(t) // another browser
	a := env.do(t, "POST", "/ui/logout", nil, c, sameOrigin...)
	if a.status != http.StatusSeeOther || a.header.Get("Location") != "/ui/login" {
		t.Fatalf("sign-out = %d to %q, want 303 to /ui/login", a.status, a.header.Get("Location"))
	}
	cleared := sessionCookieOf(t, a)
	if cleared == nil || cleared.Value != "" || cleared.MaxAge >= 0 || cleared.Path != "/" {
		t.Errorf("sign-out's Set-Cookie %q, want the cookie cleared (empty, Max-Age=0, Path=/)", a.header.Values("Set-Cookie"))
	}
	// A copy of the old cookie, as an attacker who stole it would keep.
	a = env.do(t, "GET", "/v1/vms", nil, c)
	if a.status != http.StatusUnauthorized {
		t.Fatalf("GET /v1/vms with the signed-out cookie = %d, want 401", a.status)
	}
	if msg, code := errorCode(t, a); code != "unauthorized" || !strings.Contains(msg, "sign in again") {
		t.Errorf("signed-out cookie: %q (%s), want unauthorized saying to sign in again", msg, code)
	}
	if a := env.do(t, "GET", "/ui/", nil, c); a.status != http.StatusSeeOther || a.header.Get("Location") != "/ui/login" {
		t.Errorf("GET /ui/ with the signed-out cookie = %d to %q, want 303 to /ui/login", a.status, a.header.Get("Location"))
	}
	if a := env.do(t, "GET", "/ui/login", nil, c); a.status != http.StatusOK {
		t.Errorf("GET /ui/login with the signed-out cookie = %d, want 200 (the form)", a.status)
	}
	if a := env.do(t, "GET", "/v1/vms", nil, other); a.status != http.StatusOK {
		t.Errorf("the other browser's cookie gets %d after one signed out, want 200", a.status)
	}
	// Signing out without a cookie, or twice, is harmless.
	for _, cookie := range []*http.Cookie{nil, c} {
		if a := env.do(t, "POST", "/ui/logout", nil, cookie, sameOrigin...); a.status != http.StatusSeeOther {
			t.Errorf("sign-out with cookie %v = %d, want 303", cookie != nil, a.status)
		}
	}
}

func TestUITamperedCookie(t *testing.T) {
	env := mustStartUI(t, testToken, false)
	c := env.signIn(t)
	payload, mac, _ := strings.Cut(c.Value, ".")
	flip := func(s string) string { // another base64url character at the start
		if s[0] == 'A' {
			return "B" + s[1:]
		}
		return "A" + s[1:]
	}
	otherEnv := mustStartUI(t, "another-token", false)
	for name, v := range map[string]string{
		"payload changed": flip(payload) + "." + mac,
		"MAC changed":     payload + "." + flip(mac),
		"no MAC":          payload,
		"garbage":         "hello",
		"other token's":   otherEnv.signIn(t).Value,
	} {
		bad := &http.Cookie{Name: "forewarn_session", Value: v}
		a := env.do(t, "GET", "/v1/vms", nil, bad)
		if a.status != http.StatusUnauthorized {
			t.Errorf("%s cookie: GET /v1/vms = %d, want 401", name, a.status)
			continue
		}
		if msg, code := errorCode(t, a); code != "unauthorized" || !strings.Contains(msg, "sign in again") {
			t.Errorf("%s cookie: %q (%s), want unauthorized saying to sign in again", name, msg, code)
		}
		if a := env.do(t, "GET", "/ui/", nil, bad); a.status != http.StatusSeeOther {
			t.Errorf("%s cookie: GET /ui/ = %d, want 303", name, a.status)
		}
		if a := env.do(t, "POST", "/v1/vms/web-0/restart", nil, bad, sameOrigin...); a.status != http.StatusUnauthorized {
			t.Errorf("%s cookie: POST = %d, want 401", name, a.status)
		}
	}
	if changes := env.store.changes(); changes != 0 {
		t.Errorf("fleet changed with bad cookies: %d changes, want none", changes)
	}
}

// TestUIBearerWins: with a bearer token, the cookie is not looked at.
func TestUIBearerWins(t *testing.T) {
	env := mustStartUI(t, testToken, false)
	bad := &http.Cookie{Name: "forewarn_session", Value: "tampered.cookie"}
	bearer := []string{"Authorization", "Bearer " + testToken}
	if a := env.do(t, "GET", "/v1/vms", nil, bad, bearer...); a.status != http.StatusOK {
		t.Errorf("right bearer token with a bad cookie = %d %s, want 200", a.status, a.body)
	}
	if a := env.do(t, "POST", "/v1/vms/web-0/restart", nil, bad, bearer...); a.status != http.StatusCreated {
		t.Errorf("POST with the right bearer token and a bad cookie = %d %s, want 201", a.status, a.body)
	}
	good := env.signIn(t)
	a := env.do(t, "GET", "/v1/vms", nil, good, "Authorization", "Bearer wrong")
	if a.status != http.StatusUnauthorized {
		t.Errorf("wrong bearer token with a good cookie = %d, want 401", a.status)
	} else if msg, _ := errorCode(t, a); !strings.Contains(msg, "invalid bearer token") {
		t.Errorf("wrong bearer token with a good cookie: %q, want invalid bearer token", msg)
	}
}

// TestUIEmptyToken: a server without a token signs no one in.
func TestUIEmptyToken(t *testing.T) {
	env := mustStartUI(t, "", false)
	for _, token := range []string{"", " ", "x", testToken} {
		a := env.do(t, "POST", "/ui/login", url.Values{"token": {token}}, nil, sameOrigin...)
		if a.status != http.StatusUnauthorized || len(a.header.Values("Set-Cookie")) > 0 {
			t.Errorf("token %q on a server without a token = %d, Set-Cookie %q; want 401, none",
				token, a.status, a.header.Values("Set-Cookie"))
		}
	}
	for _, v := range []string{"", "x.y", mustStartUI(t, testToken, false).signIn(t).Value} {
		c := &http.Cookie{Name: "forewarn_session", Value: v}
		if a := env.do(t, "GET", "/v1/vms", nil, c); a.status != http.StatusUnauthorized {
			t.Errorf("cookie %q on a server without a token: GET /v1/vms = %d, want 401", v, a.status)
		}
		if a := env.do(t, "GET", "/ui/", nil, c); a.status != http.StatusSeeOther {
			t.Errorf("cookie %q on a server without a token: GET /ui/ = %d, want 303", v, a.status)
		}
	}
	if n, _ := env.store.counts(); n != 0 {
		t.Errorf("the fleet made %d transactions, want none after the setup", n)
	}
}

// TestUILoginBodyBounded: the form's body is read up to a few KiB; a huge
// one signs no one in, even with the right token first.
func TestUILoginBodyBounded(t *testing.T) {
	env := mustStartUI(t, testToken, false)
	huge := url.Values{"token": {testToken}, "pad": {strings.Repeat("x", 1<<20)}}
	a := env.do(t, "POST", "/ui/login", huge, nil, sameOrigin...)
	if a.status == http.StatusSeeOther || a.status < 400 || len(a.header.Values("Set-Cookie")) > 0 {
		t.Errorf("1 MiB sign-in body = %d, Set-Cookie %q; want a 4xx and no cookie", a.status, a.header.Values("Set-Cookie"))
	}
	// A form of ordinary size passes.
	fine := url.Values{"token": {testToken}, "pad": {strings.Repeat("x", 2000)}}
	if a := env.do(t, "POST", "/ui/login", fine, nil, sameOrigin...); a.status != http.StatusSeeOther {
		t.Errorf("2 KB sign-in body with the right token = %d, want 303", a.status)
	}
}

// TestUIStatic: the page's files are served without a session, with the
// CSP and a type the browser accepts under nosniff; no directory is
// listed.
func TestUIStatic(t *testing.T) {
	env := mustStartUI(t, testToken, false)
	served := 0
	err := fs.WalkDir(dashboard.Static, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || name == "index.html" { // index.html is the page, at /ui/
			return err
		}
		want, err := fs.ReadFile(dashboard.Static, name)
		if err != nil {
			return err
		}
		a := env.do(t, "GET", "/ui/static/"+name, nil, nil)
		if a.status != http.StatusOK || a.body != string(want) {
			t.Errorf("GET /ui/static/%s = %d (%d bytes), want 200 with the file (%d bytes)", name, a.status, len(a.body), len(want))
			return nil
		}
		checkPageHeaders(t, "GET /ui/static/"+name, a, "no-cache")
		ct := a.header.Get("Content-Type")
		switch path.Ext(name) {
		case ".js", ".mjs":
			if !strings.HasPrefix(ct, "text/javascript") && !strings.HasPrefix(ct, "application/javascript") {
				t.Errorf("GET /ui/static/%s: Content-Type %q, which nosniff makes the browser refuse", name, ct)
			}
		case ".css":
			if !strings.HasPrefix(ct, "text/css") {
				t.Errorf("GET /ui/static/%s: Content-Type %q, want text/css", name, ct)
			}
		}
		served++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d static files served", served)

	listing := env.do(t, "GET", "/ui/static/", nil, nil)
	if listing.status != http.StatusNotFound || strings.Contains(listing.body, "href") {
		t.Errorf("GET /ui/static/ = %d %q, want 404 without a listing", listing.status, listing.body)
	}
	if a := env.do(t, "GET", "/ui/static/no-such-file.js", nil, nil); a.status != http.StatusNotFound {
		t.Errorf("GET /ui/static/no-such-file.js = %d, want 404", a.status)
	}
	// The page itself is only at /ui/, behind the sign-in.
	if a := env.do(t, "GET", "/ui/static/index.html", nil, nil); a.status == http.StatusOK {
		t.Errorf("GET /ui/static/index.html = 200, want the page only at /ui/")
	}
}
