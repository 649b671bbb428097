package imds

import (
	"context"
	"net/http"
)

// getEvents answers a GET of /metadata/scheduledevents: it enables the
// scope, holds a long-poll until the scope changes, and answers the document
// of the requested api-version, or 304 if If-None-Match matches. Both
// answers are left in poll, for the VM's record.
func (s *Server) getEvents(in *incoming, out *reply, req *request, poll *answeredPoll) {
	c, ok := s.enable(in, out, req)
	if !ok {
		return
	}
	if req.poll.wait && req.poll.lastETag == c.state.etag {
		var ok bool
		c, ok = s.hold(in.ctx, req, c)
		if in.ctx.Err() != nil {
			return
		}
		if !ok {
			out.fail(forbidden(req.addr.String()))
			return
		}
	}
	st := c.state
	out.etag = st.etagHeader
	if !req.poll.wait && noneMatch(in.ifNoneMatch, st.etag) {
		out.send(http.StatusNotModified, "", nil, nil)
	} else {
		doc := st.document(req.version)
		if doc.err != nil {
			s.internalError(in, out, "render document", doc.err)
			return
		}
		out.send(http.StatusOK, contentTypeJSON, doc.body, doc.length)
	}
	*poll = answeredPoll{polls: c.polls, state: st, version: req.version}
}

// enable tells the control plane the caller's scope asked, which may hold
// the first call (SPEC.md 9). Shutdown ends the hold and the call is
// answered. The caller is then looked up again, since the scope may have
// changed during the hold; false means out holds the answer, or none.
func (s *Server) enable(in *incoming, out *reply, req *request) (caller, bool) {
	ctx := s.enableContext(in.ctx)
	err := s.plane.Enable(ctx, req.caller.state.scope.Name)
	s.releaseEnableContext(ctx)
	switch {
	case in.ctx.Err() != nil:
		return caller{}, false
	case err != nil && !s.shuttingDown():
		s.internalError(in, out, "enable scope "+req.caller.state.scope.Name, err)
		return caller{}, false
	}
	c, ok := s.lookup(req.addr)
	if !ok {
		out.fail(forbidden(req.addr.String()))
	}
	return c, ok
}

// hold waits until the caller's scope changes, the long-poll times out, the
// server shuts down or the client goes away. It then looks the caller up
// again: its VM may have moved or been deleted (false).
func (s *Server) hold(ctx context.Context, req *request, c caller) (caller, bool) {
	if !s.shuttingDown() {
		timeout := s.clock.After(req.poll.timeout)
		select {
		case <-c.state.changed:
		case <-timeout:
		case <-s.done.Done():
		case <-ctx.Done():
			return c, false
		}
	}
	return s.lookup(req.addr)
}
