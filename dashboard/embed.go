// Package dashboard is the operator's web dashboard: the files of the page
// and the sign-in form the admin API serves under /ui/ (admin.Server).
//
// Everything is embedded in the binary: the page loads no file from
// elsewhere and works offline. The page itself is plain JavaScript without
// a build step; it reads the fleet from the admin API's live stream
// (GET /v1/stream) and acts through the same API, signed in by a cookie.
package dashboard

import (
	"embed"
	"html/template"
	"io"
	"io/fs"
)

//go:embed static
var files embed.FS

// Static holds the page (index.html), its scripts and its styles.
var Static = mustSub(files, "static")

//go:embed login.html
var loginHTML string

// LoginCSS styles the sign-in form.
//
//go:embed login.css
var LoginCSS []byte

var loginPage = template.Must(template.New("login").Parse(loginHTML))

// Login is what the sign-in form shows.
type Login struct {
	// Error, if set, says why the last attempt failed.
	Error string
	// Version is the server's version.
	Version string
}

// RenderLogin writes the sign-in form, a page that works without
// JavaScript.
func RenderLogin(w io.Writer, l Login) error {
	return loginPage.Execute(w, l)
}

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err)
	}
	return sub
}
