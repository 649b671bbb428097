package admin

import (
	"net/http"
	"net/url"

	"github.com/forewarn/forewarn"
)

func (s *Server) listChaos(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	rules, err := s.fleet.Chaos(r.Context())
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, nonNil(rules))
	return nil
}

// addChaos answers POST /v1/chaos with the new rule. There is no GET of one
// rule, so the answer has no Location.
func (s *Server) addChaos(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	var spec forewarn.ChaosSpec
	if err := decodeBody(w, r, &spec); err != nil {
		return err
	}
	rule, err := s.fleet.AddChaos(r.Context(), spec)
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusCreated, rule)
	return nil
}

func (s *Server) deleteChaos(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	if err := s.fleet.DeleteChaos(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
