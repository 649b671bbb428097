package admin

import (
	"net/http"
	"net/url"

	"github.com/forewarn/forewarn"
)

func (s *Server) listScopes(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	scopes, err := s.fleet.Scopes(r.Context())
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, nonNil(scopes))
	return nil
}

func (s *Server) createScope(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	var spec forewarn.ScopeSpec
	if err := decodeBody(w, r, &spec); err != nil {
		return err
	}
	scope, err := s.fleet.CreateScope(r.Context(), spec)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/v1/scopes/"+url.PathEscape(scope.Name))
	s.writeJSON(w, http.StatusCreated, scope)
	return nil
}

func (s *Server) getScope(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	scope, err := s.fleet.Scope(r.Context(), r.PathValue("name"))
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, scope)
	return nil
}

func (s *Server) deleteScope(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	if err := s.fleet.DeleteScope(r.Context(), r.PathValue("name")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
