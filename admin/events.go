package admin

import (
	"context"
	"net/http"
	"net/url"

	"github.com/forewarn/forewarn"
)

// listEvents answers a page of the events in flight the query selects,
// with a Link to the next page if there is one.
func (s *Server) listEvents(w http.ResponseWriter, r *http.Request, q url.Values) error {
	query, err := parseEventQuery(q)
	if err != nil {
		return err
	}
	events, next, err := s.fleet.Events(r.Context(), query)
	if err != nil {
		return err
	}
	setNextLink(w, r, eventQueryValues(query), next)
	s.writeJSON(w, http.StatusOK, nonNil(events))
	return nil
}

func (s *Server) getEvent(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	event, err := s.fleet.Event(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, event)
	return nil
}

func (s *Server) approve(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	return s.changeEvent(w, r, s.fleet.Approve)
}

func (s *Server) cancel(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	return s.changeEvent(w, r, s.fleet.Cancel)
}

// changeEvent applies a change that takes no input to the event of the path
// and answers with the event.
func (s *Server) changeEvent(w http.ResponseWriter, r *http.Request,
	change func(context.Context, string) (*forewarn.Event, error)) error {
	if err := requireEmptyBody(w, r); err != nil {
		return err
	}
	event, err := change(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, event)
	return nil
}

// resolve answers POST /v1/events/{id}/resolve: it settles a started event
// whose actuation failed, as the body's action says.
func (s *Server) resolve(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	var req forewarn.Resolution
	if err := decodeBody(w, r, &req); err != nil {
		return err
	}
	if err := checkResolveAction(req.Action); err != nil {
		return err
	}
	event, err := s.fleet.Resolve(r.Context(), r.PathValue("id"), req)
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, event)
	return nil
}

// history answers GET /v1/history: a page of the finished and cancelled
// events, newest first, with a Link to the next page if there is one.
func (s *Server) history(w http.ResponseWriter, r *http.Request, q url.Values) error {
	limit, err := parseLimit(q, defaultHistoryLimit)
	if err != nil {
		return err
	}
	query := forewarn.HistoryQuery{After: q.Get("after"), Limit: limit}
	events, next, err := s.fleet.HistoryPage(r.Context(), query)
	if err != nil {
		return err
	}
	setNextLink(w, r, historyQueryValues(query), next)
	s.writeJSON(w, http.StatusOK, nonNil(events))
	return nil
}
