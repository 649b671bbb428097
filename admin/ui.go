package admin

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/http"
	"strings"

	"github.com/forewarn/forewarn/dashboard"
)

// uiCSP is the dashboard's Content-Security-Policy: its own files only, no
// inline script or style, no framing.
const uiCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// maxLoginBody bounds the sign-in form's body.
const maxLoginBody = 4 << 10

// uiRoutes registers the dashboard: the page at /ui/, its files at
// /ui/static/, and the sign-in form. Only the page needs a session; its
// files hold no data. The listener's root leads to the dashboard.
func (s *Server) uiRoutes() {
	s.mux.Handle("GET /{$}", http.RedirectHandler("/ui/", http.StatusFound))
	s.mux.Handle("GET /ui", http.RedirectHandler("/ui/", http.StatusMovedPermanently))
	s.mux.HandleFunc("GET /ui/{$}", s.uiIndex)
	s.mux.HandleFunc("GET /ui/login", s.uiLoginForm)
	s.mux.Handle("POST /ui/login", s.crossOrigin.Handler(http.HandlerFunc(s.uiLogin)))
	s.mux.Handle("POST /ui/logout", s.crossOrigin.Handler(http.HandlerFunc(s.uiLogout)))
	s.mux.HandleFunc("GET /ui/login.css", s.uiLoginCSS)
	files := http.StripPrefix("/ui/static/", http.FileServerFS(dashboard.Static))
	s.mux.HandleFunc("GET /ui/static/", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") { // no directory listings
			http.NotFound(w, r)
			return
		}
		uiHeaders(w, "no-cache")
		if etag, ok := s.etags[strings.TrimPrefix(r.URL.Path, "/ui/static/")]; ok {
			w.Header().Set("ETag", etag) // the file server answers If-None-Match with 304
		}
		files.ServeHTTP(w, r)
	})
}

// etags returns the ETag of every file of fsys, a hash of its content:
// embedded files have no modification time, and without a validator the
// browser would fetch every file again on each load.
func etags(fsys fs.FS) map[string]string {
	tags := map[string]string{}
	// Reading an embedded file system cannot fail; a file without a tag
	// would only be fetched again.
	_ = fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		tags[path] = `"` + hex.EncodeToString(sum[:8]) + `"`
		return nil
	})
	return tags
}

// uiHeaders sets the headers of every dashboard answer.
func uiHeaders(w http.ResponseWriter, cache string) {
	h := w.Header()
	h.Set("Content-Security-Policy", uiCSP)
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", cache)
}

// signedIn reports whether the request carries a valid session cookie.
func (s *Server) signedIn(r *http.Request) bool {
	c, err := r.Cookie(sessionCookie)
	return err == nil && s.sessions.valid(c.Value)
}

// uiIndex answers the page, or sends the browser to the sign-in form.
func (s *Server) uiIndex(w http.ResponseWriter, r *http.Request) {
	if !s.signedIn(r) {
		http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
		return
	}
	page, err := fs.ReadFile(dashboard.Static, "index.html")
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	uiHeaders(w, "no-store")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(page)
}

// uiLoginForm answers the sign-in form, or the page to a signed-in browser.
func (s *Server) uiLoginForm(w http.ResponseWriter, r *http.Request) {
	if s.signedIn(r) {
		http.Redirect(w, r, "/ui/", http.StatusSeeOther)
		return
	}
	s.renderLogin(w, http.StatusOK, "")
}

// uiLogin checks the token of the sign-in form. The right one gets a
// session cookie that scripts cannot read (HttpOnly) and that no other
// site's request carries (SameSite=Strict); the token itself is never
// stored in the browser.
func (s *Server) uiLogin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxLoginBody)
	if err := r.ParseForm(); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			s.renderLogin(w, http.StatusRequestEntityTooLarge, "The form is too large: send the token alone.")
			return
		}
		s.renderLogin(w, http.StatusBadRequest, "The form could not be read: "+err.Error())
		return
	}
	token := strings.TrimSpace(r.PostForm.Get("token"))
	if !s.token.matches(token) {
		s.log.Warn("dashboard sign-in refused", "remote", r.RemoteAddr)
		msg := "That is not the admin token."
		switch {
		case !s.token.ok:
			msg = "This server has no admin token, so no one can sign in: see its log."
		case token == "":
			msg = "Enter the admin token."
		}
		s.renderLogin(w, http.StatusUnauthorized, msg)
		return
	}
	value, expires := s.sessions.issue()
	setSessionCookie(w, r, &http.Cookie{Value: value, Expires: expires})
	s.log.Info("dashboard sign-in", "remote", r.RemoteAddr)
	http.Redirect(w, r, "/ui/", http.StatusSeeOther)
}

// setSessionCookie sets the session cookie c (its value and lifetime) with
// the attributes every setting of it shares, so that clearing it matches
// the cookie it clears.
func setSessionCookie(w http.ResponseWriter, r *http.Request, c *http.Cookie) {
	c.Name, c.Path = sessionCookie, "/"
	c.HttpOnly, c.SameSite, c.Secure = true, http.SameSiteStrictMode, overTLS(r)
	http.SetCookie(w, c)
}

// overTLS reports whether the browser reached the server over TLS: its
// own, or a proxy's in front that says so (X-Forwarded-Proto, as behind
// --admin-insecure). Trusting the header is safe here: it only decides
// whether the cookie is Secure, and a browser that did not use https
// refuses a Secure cookie, so a false claim only fails that sign-in.
func overTLS(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// uiLogout ends the session and clears the cookie.
func (s *Server) uiLogout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil {
		s.sessions.revoke(c.Value)
	}
	setSessionCookie(w, r, &http.Cookie{MaxAge: -1})
	http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
}

func (s *Server) renderLogin(w http.ResponseWriter, status int, msg string) {
	var page bytes.Buffer
	if err := dashboard.RenderLogin(&page, dashboard.Login{Error: msg, Version: s.version}); err != nil {
		s.log.Error("render sign-in form", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	uiHeaders(w, "no-store")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(page.Bytes())
}

func (s *Server) uiLoginCSS(w http.ResponseWriter, _ *http.Request) {
	uiHeaders(w, "no-cache")
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	_, _ = w.Write(dashboard.LoginCSS)
}
