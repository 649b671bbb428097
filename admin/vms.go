package admin

import (
	"net/http"
	"net/url"

	"github.com/forewarn/forewarn"
)

// listVMs answers a page of the VMs the query selects, with a Link to the
// next page if there is one.
func (s *Server) listVMs(w http.ResponseWriter, r *http.Request, q url.Values) error {
	query, err := parseVMQuery(q)
	if err != nil {
		return err
	}
	vms, next, err := s.fleet.VMs(r.Context(), query)
	if err != nil {
		return err
	}
	setNextLink(w, r, vmQueryValues(query), next)
	s.writeJSON(w, http.StatusOK, nonNil(vms))
	return nil
}

func (s *Server) createVM(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	var spec forewarn.VMSpec
	if err := decodeBody(w, r, &spec); err != nil {
		return err
	}
	vm, err := s.fleet.CreateVM(r.Context(), spec)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/v1/vms/"+url.PathEscape(vm.Name))
	s.writeJSON(w, http.StatusCreated, vm)
	return nil
}

// MaxBatch is the most scopes and VMs one POST /v1/batch may create.
const MaxBatch = 10000

// batchRequest is the body of POST /v1/batch.
type batchRequest struct {
	Scopes []forewarn.ScopeSpec `json:"scopes"`
	VMs    []forewarn.VMSpec    `json:"vms"`
}

// batchResult is the answer of POST /v1/batch: how many were created.
type batchResult struct {
	Scopes int `json:"scopes"`
	VMs    int `json:"vms"`
}

// createBatch answers POST /v1/batch: it creates the scopes, then the VMs,
// all or none, in one transaction.
func (s *Server) createBatch(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	var req batchRequest
	if err := decodeBody(w, r, &req); err != nil {
		return err
	}
	if n := len(req.Scopes) + len(req.VMs); n == 0 || n > MaxBatch {
		return forewarn.Errorf(forewarn.ErrInvalid,
			"a batch creates 1 to %d scopes and VMs, not %d", MaxBatch, n)
	}
	if err := s.fleet.CreateBatch(r.Context(), req.Scopes, req.VMs); err != nil {
		return err
	}
	s.writeJSON(w, http.StatusCreated, batchResult{len(req.Scopes), len(req.VMs)})
	return nil
}

func (s *Server) getVM(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	vm, err := s.fleet.VM(r.Context(), r.PathValue("name"))
	if err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, vm)
	return nil
}

func (s *Server) deleteVM(w http.ResponseWriter, r *http.Request, _ url.Values) error {
	if err := s.fleet.DeleteVM(r.Context(), r.PathValue("name")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// operate returns the handler of one user operation on a VM.
func (s *Server) operate(op forewarn.Operation) apiFunc {
	return func(w http.ResponseWriter, r *http.Request, _ url.Values) error {
		if err := requireEmptyBody(w, r); err != nil {
			return err
		}
		event, err := s.fleet.Operate(r.Context(), r.PathValue("name"), op)
		if err != nil {
			return err
		}
		s.writeCreatedEvent(w, event)
		return nil
	}
}

// unknownOperation answers a POST to an operation that does not exist.
func (s *Server) unknownOperation(_ http.ResponseWriter, r *http.Request, _ url.Values) error {
	return forewarn.Errorf(forewarn.ErrNotFound,
		"unknown operation %q: use restart, redeploy, evict, terminate, fail or degrade", r.PathValue("operation"))
}
