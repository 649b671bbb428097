package admin

import (
	"bytes"
	"fmt"
	"net/http"

	"github.com/forewarn/forewarn"
)

// serveUnmatched answers a request that no route takes. The mux's own
// answer (404, 405 with Allow, or a redirect to the clean path) is recorded;
// 404 and 405 are answered in JSON instead of text.
func (s *Server) serveUnmatched(w http.ResponseWriter, r *http.Request, h http.Handler) {
	if r.Method == http.MethodConnect && r.URL.Path == "" {
		// Authority form (host:port), as to a proxy: no path of this API.
		s.writeError(w, r, forewarn.Errorf(forewarn.ErrNotFound, "no such path: CONNECT %s (this is not a proxy)", r.Host))
		return
	}
	rec := &recorder{header: http.Header{}}
	h.ServeHTTP(rec, r)
	switch rec.status {
	case http.StatusNotFound:
		s.writeError(w, r, forewarn.Errorf(forewarn.ErrNotFound, "no such path: %s", r.URL.Path))
	case http.StatusMethodNotAllowed:
		allow := rec.header.Get("Allow")
		w.Header().Set("Allow", allow)
		s.writeJSON(w, http.StatusMethodNotAllowed, errorBody{
			Error: fmt.Sprintf("method %s is not allowed on %s (allowed: %s)", r.Method, r.URL.Path, allow),
			Code:  codeMethodNotAllowed,
		})
	default:
		rec.replay(w)
	}
}

// recorder records an answer to replay it later.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}

// replay sends the recorded answer to w.
func (r *recorder) replay(w http.ResponseWriter) {
	for k, v := range r.header {
		w.Header()[k] = v
	}
	w.WriteHeader(max(r.status, http.StatusOK))
	_, _ = w.Write(r.body.Bytes())
}
