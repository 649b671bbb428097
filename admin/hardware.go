package admin

import (
	"net/http"
	"net/url"
	"time"

	"github.com/forewarn/forewarn"
)

// fail answers POST /v1/vms/{name}/fail: a hardware failure of the VM.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	if err := requireEmptyBody(w, r); err != nil {
		return err
	}
	event, err := s.fleet.Fail(r.Context(), r.PathValue("name"))
	if err != nil {
		return err
	}
	s.writeCreatedEvent(w, event)
	return nil
}

// degrade answers POST /v1/vms/{name}/degrade: degraded hardware, with the
// notice of the optional body.
func (s *Server) degrade(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	var req degradeRequest
	if err := decodeOptionalBody(w, r, &req); err != nil {
		return err
	}
	if err := checkNotice(req.Notice); err != nil {
		return err
	}
	event, err := s.fleet.Degrade(r.Context(), r.PathValue("name"), time.Duration(req.Notice))
	if err != nil {
		return err
	}
	s.writeCreatedEvent(w, event)
	return nil
}

// writeCreatedEvent answers 201 with a new event and its location.
func (s *Server) writeCreatedEvent(w http.ResponseWriter, event *forewarn.Event) {
	w.Header().Set("Location", "/v1/events/"+url.PathEscape(event.ID))
	s.writeJSON(w, http.StatusCreated, event)
}
