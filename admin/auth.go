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

// authorize checks the request's bearer token.
func (s *Server) authorize(r *http.Request) error {
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
