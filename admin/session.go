package admin

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strings"
	"sync"
	"time"
)

// sessionCookie names the dashboard's session cookie.
const sessionCookie = "forewarn_session"

// sessionLifetime is how long a sign-in lasts: a working day, so that an
// operator signs in once per shift and a forgotten browser does not stay
// signed in for good.
const sessionLifetime = 12 * time.Hour

// sessions issues and checks the dashboard's session cookies. A cookie is
// its expiry and a random ID, signed with a key derived from the admin
// token: replicas that share the token accept each other's cookies without
// sharing state, a restart keeps everyone signed in, and a new token ends
// every session. Signing out revokes the cookie on this replica; elsewhere
// it lasts until it expires. Without a token, no cookie is valid.
type sessions struct {
	key []byte // nil: no token
	now func() time.Time

	mu      sync.Mutex
	revoked map[string]time.Time // revoked cookie IDs, until they expire
}

func newSessions(token string, now func() time.Time) *sessions {
	s := &sessions{now: now, revoked: map[string]time.Time{}}
	if token != "" {
		mac := hmac.New(sha256.New, []byte(token))
		mac.Write([]byte("forewarn dashboard session"))
		s.key = mac.Sum(nil)
	}
	return s
}

// A cookie's payload is its expiry (Unix seconds) and a random ID.
const (
	expiryLen  = 8
	idLen      = 16
	payloadLen = expiryLen + idLen
)

// issue returns a new session cookie's value and its expiry.
func (s *sessions) issue() (string, time.Time) {
	expires := s.now().Add(sessionLifetime).Truncate(time.Second)
	payload := make([]byte, payloadLen)
	binary.BigEndian.PutUint64(payload, uint64(expires.Unix()))
	rand.Read(payload[expiryLen:])
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(s.sign(payload)), expires
}

// valid reports whether value is a cookie this server issued that has
// neither expired nor been revoked.
func (s *sessions) valid(value string) bool {
	payload, ok := s.open(value)
	if !ok {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, revoked := s.revoked[string(payload[expiryLen:])]
	return !revoked
}

// revoke ends the session of a cookie, if it is valid.
func (s *sessions) revoke(value string) {
	payload, ok := s.open(value)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for id, expires := range s.revoked {
		if now.After(expires) {
			delete(s.revoked, id)
		}
	}
	s.revoked[string(payload[expiryLen:])] = expiryOf(payload)
}

// open returns the payload of a correctly signed cookie that has not
// expired.
func (s *sessions) open(value string) ([]byte, bool) {
	p, m, ok := strings.Cut(value, ".")
	if !ok || s.key == nil {
		return nil, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(p)
	if err != nil || len(payload) != payloadLen {
		return nil, false
	}
	mac, err := base64.RawURLEncoding.DecodeString(m)
	if err != nil || !hmac.Equal(mac, s.sign(payload)) {
		return nil, false
	}
	return payload, s.now().Before(expiryOf(payload))
}

func (s *sessions) sign(payload []byte) []byte {
	mac := hmac.New(sha256.New, s.key)
	mac.Write(payload)
	return mac.Sum(nil)
}

func expiryOf(payload []byte) time.Time {
	return time.Unix(int64(binary.BigEndian.Uint64(payload)), 0)
}
