package admin

import (
	"net/http"
	"net/url"

	"github.com/forewarn/forewarn"
)

// listPolls answers GET /v1/scopes/{name}/polls: what this process's
// metadata endpoint recorded of the scope's VMs' polls.
func (s *Server) listPolls(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	if s.polls == nil {
		return forewarn.Errorf(forewarn.ErrNotFound, "this server does not serve the metadata endpoint")
	}
	polls, err := s.polls.Polls(r.Context(), r.PathValue("name"))
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, nonNil(polls))
	return nil
}
