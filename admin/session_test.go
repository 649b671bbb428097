package admin

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// sessionT0 is the start of the sessions' fake clock, mid-second to
// exercise the expiry's rounding.
var sessionT0 = time.Date(2026, 11, 25, 10, 0, 0, 700_000_000, time.UTC)

// fakeNow is a clock the test moves by hand.
type fakeNow struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeNow) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeNow) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// newTestSessions returns sessions for token on a fake clock at sessionT0.
func newTestSessions(token string) (*sessions, *fakeNow) {
	clock := &fakeNow{t: sessionT0}
	return newSessions(token, clock.now), clock
}

// signWith signs payload as a server whose key is key would, encoded as a
// cookie value.
func signWith(key, payload []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write(payload)
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(mac.Sum(nil))
}

// cookieParts decodes a cookie value into its payload and MAC.
func cookieParts(t *testing.T, value string) (payload, mac []byte) {
	t.Helper()
	p, m, ok := strings.Cut(value, ".")
	if !ok {
		t.Fatalf("cookie %q has no '.'", value)
	}
	var err error
	if payload, err = base64.RawURLEncoding.DecodeString(p); err != nil {
		t.Fatalf("cookie payload %q: %v", p, err)
	}
	if mac, err = base64.RawURLEncoding.DecodeString(m); err != nil {
		t.Fatalf("cookie MAC %q: %v", m, err)
	}
	return payload, mac
}

func TestSessionExpires(t *testing.T) {
	s, clock := newTestSessions("tok")
	value, expires := s.issue()
	want := sessionT0.Add(sessionLifetime).Truncate(time.Second)
	if !expires.Equal(want) {
		t.Fatalf("expires %v, want %v (12 h, whole seconds)", expires, want)
	}
	for _, tc := range []struct {
		at   time.Time
		want bool
	}{
		{sessionT0, true},
		{sessionT0.Add(6 * time.Hour), true},
		{expires.Add(-time.Nanosecond), true},
		{expires, false},
		{expires.Add(time.Second), false},
		{expires.Add(365 * 24 * time.Hour), false},
	} {
		clock.set(tc.at)
		if got := s.valid(value); got != tc.want {
			t.Errorf("valid at %v (expiry %v) = %v, want %v", tc.at, expires, got, tc.want)
		}
	}
}

// TestSessionCookiesDiffer: each sign-in gets its own ID, so that signing
// out one browser does not sign out another.
func TestSessionCookiesDiffer(t *testing.T) {
	s, _ := newTestSessions("tok")
	a, _ := s.issue()
	b, _ := s.issue()
	if a == b {
		t.Fatalf("two sign-ins got the same cookie %q", a)
	}
	s.revoke(a)
	if s.valid(a) || !s.valid(b) {
		t.Errorf("after revoking a: valid(a) = %v, valid(b) = %v; want false, true", s.valid(a), s.valid(b))
	}
}

func TestSessionRefusesTampering(t *testing.T) {
	s, _ := newTestSessions("tok")
	value, _ := s.issue()
	if !s.valid(value) {
		t.Fatalf("fresh cookie %q is not valid", value)
	}
	payload, mac := cookieParts(t, value)
	enc := base64.RawURLEncoding

	later := append([]byte(nil), payload...) // a later expiry, the old MAC
	binary.BigEndian.PutUint64(later, binary.BigEndian.Uint64(payload)+3600)
	otherID := append([]byte(nil), payload...) // another ID, the old MAC
	otherID[len(otherID)-1] ^= 1
	badMAC := append([]byte(nil), mac...)
	badMAC[0] ^= 0x80
	short := payload[:len(payload)-1] // correctly signed, but not a payload

	for name, v := range map[string]string{
		"later expiry":          enc.EncodeToString(later) + "." + enc.EncodeToString(mac),
		"other ID":              enc.EncodeToString(otherID) + "." + enc.EncodeToString(mac),
		"flipped MAC bit":       enc.EncodeToString(payload) + "." + enc.EncodeToString(badMAC),
		"truncated MAC":         enc.EncodeToString(payload) + "." + enc.EncodeToString(mac[:16]),
		"no MAC":                enc.EncodeToString(payload) + ".",
		"no dot":                enc.EncodeToString(payload) + enc.EncodeToString(mac),
		"MAC only":              "." + enc.EncodeToString(mac),
		"padded MAC":            enc.EncodeToString(payload) + "." + base64.URLEncoding.EncodeToString(mac),
		"extra part":            value + ".x",
		"not base64":            "!!!." + enc.EncodeToString(mac),
		"signed short payload":  signWith(s.key, short),
		"signed longer payload": signWith(s.key, append(append([]byte(nil), payload...), 0)),
		"empty":                 "",
	} {
		if s.valid(v) {
			t.Errorf("%s: cookie %q is valid", name, v)
		}
	}
	if !s.valid(value) {
		t.Errorf("the untouched cookie is no longer valid")
	}
}

// TestSessionKeyComesFromToken: replicas that share the token accept each
// other's cookies; a new token ends every session.
func TestSessionKeyComesFromToken(t *testing.T) {
	a, _ := newTestSessions("token-a")
	a2, _ := newTestSessions("token-a")
	b, _ := newTestSessions("token-b")
	value, _ := a.issue()
	if !a2.valid(value) {
		t.Errorf("a replica with the same token refuses the cookie")
	}
	if b.valid(value) {
		t.Errorf("a server with another token accepts the cookie")
	}
	// Signed with the token itself rather than the key derived from it.
	payload, _ := cookieParts(t, value)
	if a.valid(signWith([]byte("token-a"), payload)) {
		t.Errorf("a cookie signed with the raw token is valid")
	}
}

// TestSessionEmptyTokenRefusesAll: without a token there is no key, so no
// cookie is valid, not even one signed with the key an empty token would
// give, nor one this server issued itself.
func TestSessionEmptyTokenRefusesAll(t *testing.T) {
	s, _ := newTestSessions("")
	if s.key != nil {
		t.Fatalf("sessions without a token have a key")
	}
	own, _ := s.issue()
	payload, _ := cookieParts(t, own)
	for name, v := range map[string]string{
		"its own":               own,
		"empty-token key":       signWith(emptyTokenKey(), payload),
		"empty key":             signWith(nil, payload),
		"empty key, empty MAC":  base64.RawURLEncoding.EncodeToString(payload) + ".",
		"other server's cookie": mustIssue(t, "tok"),
	} {
		if s.valid(v) {
			t.Errorf("%s cookie %q is valid on a server without a token", name, v)
		}
	}
}

// TestEmptyTokenRefusesForgedCookie sends a cookie forged with the key an
// empty token would give to a server without a token: every /v1/ route and
// the page refuse it.
func TestEmptyTokenRefusesForgedCookie(t *testing.T) {
	srv := NewServer(Config{Fleet: untouchedFleet{}, Token: ""})
	payload := make([]byte, payloadLen)
	binary.BigEndian.PutUint64(payload, uint64(time.Now().Add(time.Hour).Unix()))
	forged := signWith(emptyTokenKey(), payload)
	for _, r := range []struct{ method, path string }{
		{"GET", "/v1/scopes"}, {"GET", "/v1/stream"}, {"POST", "/v1/scopes"}, {"GET", "/v1/status"},
	} {
		req := httptest.NewRequest(r.method, r.path, strings.NewReader(`{"name":"x"}`))
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: forged})
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		if w.Code != http.StatusUnauthorized {
			t.Errorf("%s %s with a forged cookie = %d %s, want 401", r.method, r.path, w.Code, w.Body)
		}
	}
	req := httptest.NewRequest("GET", "/ui/", nil)
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: forged})
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, req)
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/ui/login" {
		t.Errorf("GET /ui/ with a forged cookie = %d to %q, want 303 to /ui/login", w.Code, w.Header().Get("Location"))
	}
}

// untouchedFleet is a Fleet whose every method panics: a request that
// reaches it was let through.
type untouchedFleet struct{ forewarn.Fleet }

// emptyTokenKey is the key newSessions would derive from an empty token,
// were it to derive one.
func emptyTokenKey() []byte {
	mac := hmac.New(sha256.New, nil)
	mac.Write([]byte("forewarn dashboard session"))
	return mac.Sum(nil)
}

func mustIssue(t *testing.T, token string) string {
	t.Helper()
	s, _ := newTestSessions(token)
	v, _ := s.issue()
	return v
}

func TestSessionRevoke(t *testing.T) {
	s, clock := newTestSessions("tok")
	value, _ := s.issue()
	s.revoke("not a cookie")
	s.revoke(mustIssue(t, "other-token"))
	if len(s.revoked) != 0 {
		t.Errorf("revoking cookies that are not valid noted %d IDs", len(s.revoked))
	}
	s.revoke(value)
	if s.valid(value) {
		t.Fatalf("revoked cookie is valid")
	}
	s.revoke(value) // twice is harmless
	clock.set(sessionT0.Add(time.Hour))
	if s.valid(value) {
		t.Errorf("revoked cookie is valid again an hour later")
	}
}

// TestSessionRevokedPruned: a revoked ID is kept only until its cookie
// would have expired anyway, so signing in and out all year does not grow
// the set.
func TestSessionRevokedPruned(t *testing.T) {
	s, clock := newTestSessions("tok")
	first, _ := s.issue()
	s.revoke(first)
	clock.set(sessionT0.Add(time.Hour))
	second, _ := s.issue()
	s.revoke(second)
	if len(s.revoked) != 2 {
		t.Fatalf("%d revoked IDs, want 2", len(s.revoked))
	}
	clock.set(sessionT0.Add(sessionLifetime + 30*time.Minute)) // first expired, second not
	third, _ := s.issue()
	s.revoke(third)
	if len(s.revoked) != 2 {
		t.Errorf("%d revoked IDs after the first expired, want 2 (second and third)", len(s.revoked))
	}
	if s.valid(second) || s.valid(third) {
		t.Errorf("a revoked cookie that has not expired is valid again")
	}
	payload, _ := cookieParts(t, first)
	if _, kept := s.revoked[string(payload[expiryLen:])]; kept {
		t.Errorf("the expired cookie's ID is still in the revoked set")
	}
	for i := range 100 { // a year of sign-ins, each revoked
		clock.set(sessionT0.Add(time.Duration(i) * 4 * 24 * time.Hour))
		v, _ := s.issue()
		s.revoke(v)
	}
	if n := len(s.revoked); n > 5 {
		t.Errorf("%d revoked IDs kept after 100 sign-outs 4 days apart, want at most a few", n)
	}
}

// TestSessionConcurrent checks, under -race, that checking and revoking
// cookies from many requests at once is safe.
func TestSessionConcurrent(t *testing.T) {
	s, _ := newTestSessions("tok")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				v, _ := s.issue()
				if !s.valid(v) {
					t.Error("fresh cookie not valid")
				}
				s.revoke(v)
				if s.valid(v) {
					t.Error("revoked cookie valid")
				}
			}
		})
	}
	wg.Wait()
}
