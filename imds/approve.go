package imds

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/forewarn/forewarn"
)

// postEvents answers a POST of /metadata/scheduledevents: it approves the
// events the body names, on behalf of the caller's VM (SPEC.md 4).
func (s *Server) postEvents(in *incoming, out *reply, req *request) {
	body, aerr := in.body()
	if aerr != nil {
		out.fail(aerr)
		return
	}
	ids, aerr := parseApproval(body)
	if aerr != nil {
		out.fail(aerr)
		return
	}
	vm := req.caller.vm.Name
	if err := s.plane.Approve(in.ctx, vm, ids); err != nil {
		switch {
		case errors.Is(err, forewarn.ErrInvalid):
			out.fail(badRequest("%s", forewarn.ErrorMessage(err)))
		case errors.Is(err, forewarn.ErrNotFound):
			// The VM (or its scope) was deleted since the request was
			// admitted: 403, as from then on (SPEC.md 3).
			out.fail(forbidden(req.addr.String()))
		default:
			s.internalError(in, out, "approve events for VM "+vm, err)
		}
		return
	}
	s.log.Info("events approved", "vm", vm, "events", ids)
	out.send(http.StatusOK, contentTypeJSON, []byte("{}"), nil)
}

// approvalBody is the POST body. encoding/json matches its field names
// case-insensitively, as the real service does.
type approvalBody struct {
	StartRequests       json.RawMessage
	DocumentIncarnation json.RawMessage
}

// startRequest is one item of StartRequests.
type startRequest struct {
	EventId json.RawMessage // spelled as on the wire
}

// parseApproval reads the EventIds of a POST body, lowercased and without
// repeats. DocumentIncarnation may be a number, a string, null or absent;
// it is not checked against the current one (SPEC.md 4).
func parseApproval(body []byte) ([]string, *apiError) {
	if !json.Valid(body) {
		return nil, badRequest("Bad request. The body is not valid JSON")
	}
	var b approvalBody
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, badRequest("Bad request. The body must be a JSON object")
	}
	if err := checkIncarnation(b.DocumentIncarnation); err != nil {
		return nil, err
	}
	if isAbsent(b.StartRequests) {
		return nil, badRequest("Bad request. StartRequests is missing")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(b.StartRequests, &items); err != nil || items == nil {
		return nil, badRequest("Bad request. StartRequests must be a list")
	}
	if len(items) == 0 {
		return nil, badRequest("Bad request. StartRequests is empty")
	}
	ids := make([]string, 0, len(items))
	seen := make(map[string]bool, len(items))
	for i, item := range items {
		id, err := parseStartRequest(i, item)
		if err != nil {
			return nil, err
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// parseStartRequest reads the EventId of StartRequests[i].
func parseStartRequest(i int, item json.RawMessage) (string, *apiError) {
	var sr startRequest
	if err := json.Unmarshal(item, &sr); err != nil || string(item) == "null" {
		return "", badRequest("Bad request. StartRequests[%d] must be an object with an EventId", i)
	}
	if isAbsent(sr.EventId) {
		return "", badRequest("Bad request. StartRequests[%d].EventId is missing", i)
	}
	var id string
	if err := json.Unmarshal(sr.EventId, &id); err != nil || string(sr.EventId) == "null" {
		return "", badRequest("Bad request. StartRequests[%d].EventId must be a string", i)
	}
	return string(forewarn.KeyOf(id)), nil
}

// checkIncarnation accepts a number, a string, null or nothing.
func checkIncarnation(raw json.RawMessage) *apiError {
	if isAbsent(raw) {
		return nil
	}
	switch raw[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return nil
	}
	return badRequest("Bad request. DocumentIncarnation must be a number or a string")
}

// isAbsent reports whether a field was missing or null.
func isAbsent(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}
