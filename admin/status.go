package admin

import (
	"context"
	"net/http"
	"net/url"

	"github.com/forewarn/forewarn"
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

// Status shows where the state lives, the replicas and the leader.
func (c *Client) Status(ctx context.Context) (*forewarn.Status, error) {
	return call[*forewarn.Status](ctx, c, http.MethodGet, "/v1/status", nil, nil)
}
