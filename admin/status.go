package admin

import (
	"net/http"
	"net/url"
)

// status answers GET /v1/status.
func (s *Server) status(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	st, err := s.fleet.Status(r.Context())
	if err != nil {
		return err
	}
	st.Replicas = nonNil(st.Replicas)
	s.writeJSON(w, http.StatusOK, st)
	return nil
}
