package admin_test

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
	"github.com/forewarn/forewarn/fabric"
)

func TestStatusCode(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{nil, 200},
		{forewarn.Errorf(forewarn.ErrNotFound, "VM %q not found", "x"), 404},
		{forewarn.Errorf(forewarn.ErrConflict, "taken"), 409},
		{forewarn.Errorf(forewarn.ErrLimit, "11th operation"), 409},
		{forewarn.Errorf(forewarn.ErrInvalid, "bad name"), 400},
		{forewarn.Errorf(forewarn.ErrUnauthorized, "no token"), 401},
		{fmt.Errorf("fabric: operate: %w", forewarn.Errorf(forewarn.ErrLimit, "limit")), 409},
		{fmt.Errorf("store: %w", forewarn.ErrNotFound), 404},
		{fmt.Errorf("read etcd: %w (%w)", errors.New("etcdserver: no leader"), forewarn.ErrUnavailable), 503},
		{fmt.Errorf("commit to etcd: %w (%w)", errors.New("too many operations in txn request"), forewarn.ErrTooLarge), 413},
		{forewarn.Errorf(forewarn.ErrForbidden, "cross-site"), 403},
		{forewarn.ErrSchema, 500},
		{fs.ErrPermission, 500},
		{errors.New("disk on fire"), 500},
	}
	for _, tc := range cases {
		if got := admin.StatusCode(tc.err); got != tc.want {
			t.Errorf("StatusCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

// TestErrorMapping sends each sentinel from the fleet through the server
// and the client, and checks the status, the message and errors.Is.
func TestErrorMapping(t *testing.T) {
	sentinels := []struct {
		err    error
		status int
	}{
		{forewarn.ErrNotFound, 404},
		{forewarn.ErrConflict, 409},
		{forewarn.ErrLimit, 409},
		{forewarn.ErrInvalid, 400},
		{forewarn.ErrUnauthorized, 401},
		{forewarn.ErrUnavailable, 503},
		{forewarn.ErrForbidden, 403},
		{forewarn.ErrTooLarge, 413},
	}
	for _, s := range sentinels {
		t.Run(s.err.Error(), func(t *testing.T) {
			env := mustStart(t)
			msg := "the fleet says: " + s.err.Error()
			env.store.fail(fmt.Errorf("store: %w", forewarn.Errorf(s.err, "%s", msg)))

			a := env.request(t, "GET", "/v1/vms/web-0", testToken, "")
			if a.status != s.status || a.errorMessage(t) != msg {
				t.Errorf("GET /v1/vms/web-0 = %d %s, want %d with %q", a.status, a.body, s.status, msg)
			}
			_, err := env.client.VM(t.Context(), "web-0")
			var fe *forewarn.Error
			if !errors.Is(err, s.err) || !errors.As(err, &fe) || fe.Message != msg {
				t.Errorf("client error %#v, want a *forewarn.Error wrapping %v with message %q", err, s.err, msg)
			}
			if s.err != forewarn.ErrLimit && errors.Is(err, forewarn.ErrLimit) {
				t.Errorf("client error %v wraps ErrLimit", err)
			}
		})
	}
}

// userLimit is the number of user operations in flight a scope allows in
// TestLimitThroughAPI.
const userLimit = 10

// TestLimitThroughAPI checks the 11th user operation of a scope: 409, and
// ErrLimit through the client.
func TestLimitThroughAPI(t *testing.T) {
	env := mustStartWith(t, testToken, fabric.Config{MaxUserOps: userLimit})
	ctx, c := t.Context(), env.client
	must(c.CreateScope(ctx, forewarn.ScopeSpec{Name: "web"}))(t)
	for i := range userLimit + 1 {
		must(c.CreateVM(ctx, forewarn.VMSpec{Name: fmt.Sprintf("web-%d", i), Scope: "web"}))(t)
	}
	for i := range userLimit {
		must(c.Operate(ctx, fmt.Sprintf("web-%d", i), forewarn.OpRestart))(t)
	}
	a := env.request(t, "POST", fmt.Sprintf("/v1/vms/web-%d/restart", userLimit), testToken, "")
	if a.status != http.StatusConflict || !strings.Contains(a.errorMessage(t), "user operations in flight") {
		t.Errorf("11th operation = %d %s, want 409", a.status, a.body)
	}
	_, err := c.Operate(ctx, fmt.Sprintf("web-%d", userLimit), forewarn.OpRestart)
	if !errors.Is(err, forewarn.ErrLimit) {
		t.Errorf("11th operation through the client: %v, want ErrLimit", err)
	}
}

// TestInternalErrorIsHidden checks that an error that is not meant for the
// user answers 500 with a generic text.
func TestInternalErrorIsHidden(t *testing.T) {
	env := mustStart(t)
	env.store.fail(errors.New("bolt: page 7 checksum mismatch at /var/lib/secret"))
	a := env.request(t, "GET", "/v1/scopes", testToken, "")
	if a.status != 500 || a.errorMessage(t) != "internal error" {
		t.Errorf("GET /v1/scopes = %d %s, want 500 internal error", a.status, a.body)
	}
	_, err := env.client.Scopes(t.Context())
	if err == nil || !strings.Contains(err.Error(), "internal error (HTTP 500)") || strings.Contains(err.Error(), "secret") {
		t.Errorf("client error %v", err)
	}
	for _, s := range []error{forewarn.ErrNotFound, forewarn.ErrConflict, forewarn.ErrInvalid, forewarn.ErrUnauthorized} {
		if errors.Is(err, s) {
			t.Errorf("client error %v wraps %v", err, s)
		}
	}
}

// TestClientMapsForeignErrors checks answers that are not the API's JSON,
// as a proxy in front of it would send.
func TestClientMapsForeignErrors(t *testing.T) {
	cases := []struct {
		status int
		body   string
		want   error
	}{
		{404, "404 page not found\n", admin.ErrNotAdminAPI}, // the admin API's own 404 has a code
		{409, `{"error":"taken"}`, forewarn.ErrConflict},
		{400, `{"error":"bad"}`, forewarn.ErrInvalid},
		{413, "", forewarn.ErrInvalid},
		{401, "", forewarn.ErrUnauthorized},
		{502, "<html>bad gateway</html>", nil},
	}
	for _, tc := range cases {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(tc.status)
			fmt.Fprint(w, tc.body)
		}))
		_, err := admin.NewClient(srv.URL, testToken).Scopes(t.Context())
		srv.Close()
		if err == nil {
			t.Errorf("status %d: no error", tc.status)
			continue
		}
		if tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("status %d: %v, want %v", tc.status, err, tc.want)
		}
		if tc.want == nil && !strings.Contains(err.Error(), "HTTP 502") {
			t.Errorf("status %d: %v, want it to name the status", tc.status, err)
		}
		if strings.TrimSpace(err.Error()) == "" {
			t.Errorf("status %d: empty message", tc.status)
		}
	}
}

func TestClientConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	err := admin.NewClient(url, testToken).Health(t.Context())
	if err == nil || !strings.HasPrefix(err.Error(), "admin API at "+url+": ") ||
		!strings.Contains(err.Error(), "connection refused") {
		t.Errorf("Health of a closed server: %v, want the address and connection refused", err)
	}
}

func TestClientBadBaseURL(t *testing.T) {
	for _, base := range []string{"", "ftp://host", "http://", "http://h:1/?q=1", "::"} {
		_, err := admin.NewClient(base, testToken).Scopes(t.Context())
		if !errors.Is(err, forewarn.ErrInvalid) || !strings.Contains(err.Error(), "http://127.0.0.1:8170") {
			t.Errorf("base %q: %v, want ErrInvalid with an example", base, err)
		}
	}
}

// TestClientBaseURLForms checks that a trailing slash, a bare host:port and
// a path prefix all reach the server.
func TestClientBaseURLForms(t *testing.T) {
	env := mustStart(t)
	hostPort := strings.TrimPrefix(env.server.URL, "http://")
	for _, base := range []string{env.server.URL, env.server.URL + "/", hostPort, " " + hostPort + "/ "} {
		if _, err := admin.NewClient(base, testToken).Scopes(t.Context()); err != nil {
			t.Errorf("base %q: %v", base, err)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/admin/", http.StripPrefix("/admin", env.server.Config.Handler))
	prefixed := httptest.NewServer(mux)
	t.Cleanup(prefixed.Close)
	if _, err := admin.NewClient(prefixed.URL+"/admin/", testToken).Scopes(t.Context()); err != nil {
		t.Errorf("base with a path prefix: %v", err)
	}
}

// TestClientRefusesBadNames checks names the client cannot put in a path.
func TestClientRefusesBadNames(t *testing.T) {
	env := mustStart(t)
	ctx, c := t.Context(), env.client
	for _, name := range []string{"", ".", ".."} {
		if _, err := c.VM(ctx, name); !errors.Is(err, forewarn.ErrInvalid) {
			t.Errorf("VM(%q): %v, want ErrInvalid", name, err)
		}
		if err := c.DeleteScope(ctx, name); !errors.Is(err, forewarn.ErrInvalid) {
			t.Errorf("DeleteScope(%q): %v, want ErrInvalid", name, err)
		}
	}
	if _, err := c.Operate(ctx, "web-0", "reboot"); !errors.Is(err, forewarn.ErrInvalid) {
		t.Errorf("Operate reboot: %v, want ErrInvalid", err)
	}
	if n := env.requests.Load(); n != 0 {
		t.Errorf("the client sent %d requests", n)
	}
}

// TestClientEscapesNames checks that an id with characters special in a
// path reaches the fleet as it is.
func TestClientEscapesNames(t *testing.T) {
	env := mustStart(t)
	_, err := env.client.Event(t.Context(), "a/b c?d")
	var fe *forewarn.Error
	if !errors.As(err, &fe) || fe.Message != `event "a/b c?d" not found` {
		t.Errorf("Event with special characters: %v", err)
	}
}
