package admin

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"path"
	"strings"

	"github.com/forewarn/forewarn"
)

// tokenHash is the SHA-256 of the admin token. Comparing hashes in constant
// time hides both the token and its length; ok is false for an empty token,
// which matches nothing.
type tokenHash struct {
	sum [sha256.Size]byte
	ok  bool
}

func hashToken(token string) tokenHash {
	return tokenHash{sum: sha256.Sum256([]byte(token)), ok: token != ""}
}

// matches reports whether token is the admin token.
func (t tokenHash) matches(token string) bool {
	sum := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(sum[:], t.sum[:]) == 1 && t.ok
}

// needsToken reports whether a path is under /v1/, however it is spelled.
func needsToken(p string) bool {
	clean := path.Clean("/" + p)
	return clean == "/v1" || strings.HasPrefix(clean, "/v1/")
}

// authorize checks the request's credentials: its bearer token or, in a
// request without one, the dashboard's session cookie.
func (s *Server) authorize(r *http.Request) error {
	if r.Header.Get("Authorization") == "" {
		if c, err := r.Cookie(sessionCookie); err == nil {
			return s.authorizeSession(r, c.Value)
		}
	}
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !strings.EqualFold(scheme, "Bearer") || token == "" {
		return forewarn.Errorf(forewarn.ErrUnauthorized,
			"missing bearer token: send the header \"Authorization: Bearer <token>\"")
	}
	if !s.token.matches(token) {
		return forewarn.Errorf(forewarn.ErrUnauthorized, "invalid bearer token")
	}
	return nil
}

// authorizeSession checks a session cookie. The browser sends the cookie
// with every request to this server, also those another site's page makes
// it send, so a change made with it must come from the dashboard's own
// origin; the cookie's SameSite=Strict is the second line of defence.
func (s *Server) authorizeSession(r *http.Request, value string) error {
	if !s.sessions.valid(value) {
		return forewarn.Errorf(forewarn.ErrUnauthorized,
			"the dashboard's session has expired or is not valid: sign in again at /ui/login")
	}
	if err := s.crossOrigin.Check(r); err != nil {
		return forewarn.Errorf(forewarn.ErrForbidden,
			"cross-origin request refused: a change made with the dashboard's cookie must come from its own page")
	}
	return nil
}
