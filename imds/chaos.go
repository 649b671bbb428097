package imds

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/forewarn/forewarn"
)

// PublishChaos replaces the chaos rules the endpoint applies
// (forewarn.Publisher). The rules must not change afterwards; expired ones
// are ignored until the next publish drops them.
func (s *Server) PublishChaos(rules []*forewarn.ChaosRule) {
	kept := make([]*forewarn.ChaosRule, 0, len(rules))
	for _, r := range rules {
		if r != nil {
			kept = append(kept, r)
		}
	}
	s.chaos.Store(&kept)
	s.log.Info("chaos rules published", "rules", len(kept))
}

// injectFault applies chaos to an admitted request of scheduledevents or
// instance metadata: the first rule in force that matches the caller hits
// it with the rule's probability. A hit holds the request for the rule's
// delay, if any, and then answers the rule's status, if any, changing
// nothing. It reports whether the request has been dealt with: answered,
// or abandoned by its client during the delay.
func (s *Server) injectFault(in *incoming, out *reply, rt route, req *request) bool {
	if rt == routeVersions {
		return false
	}
	rule := s.chaosHit(req.caller)
	if rule == nil {
		return false
	}
	s.metrics.observeChaos(faultLabel(rule))
	s.log.Debug("chaos", "rule", rule.ID, "vm", req.caller.vm.Name, "path", in.path,
		"status", rule.Status, "delay", time.Duration(rule.Delay))
	if rule.Delay > 0 {
		in.readAhead()
		// Held no longer than the rule is in force: a fault ends with it.
		hold := min(time.Duration(rule.Delay), rule.Until.Sub(s.clock.Now()))
		if !s.pause(in.ctx, hold) {
			return true
		}
		in.now = s.clock.Now()
		// The VM may have been deleted or moved during the delay.
		c, ok := s.lookup(req.addr)
		if !ok {
			out.fail(forbidden(req.addr.String()))
			return true
		}
		req.caller = c
	}
	if e := chaosError(rule.Status); e != nil {
		out.fail(e)
		return true
	}
	return false
}

// chaosHit returns the first rule in force that matches the caller if it
// hits this request, else nil.
func (s *Server) chaosHit(c caller) *forewarn.ChaosRule {
	rules := s.chaos.Load()
	if rules == nil || len(*rules) == 0 {
		return nil
	}
	now := s.clock.Now()
	for _, r := range *rules {
		if r.Matches(c.state.scope.Name, c.vm.Name, now) {
			if s.roll() < r.Fraction {
				return r
			}
			return nil
		}
	}
	return nil
}

// roll draws a number in [0, 1). Config.Rand need not be safe for
// concurrent use, so draws are serialized.
func (s *Server) roll() float64 {
	s.randMu.Lock()
	defer s.randMu.Unlock()
	return s.rand()
}

// pause holds a request for d on the clock. Shutdown ends it early, and the
// request goes on (true); a client that goes away ends it too (false).
func (s *Server) pause(ctx context.Context, d time.Duration) bool {
	if s.shuttingDown() {
		return true
	}
	t := s.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.Chan():
	case <-s.done.Done():
	case <-ctx.Done():
		return false
	}
	return true
}

// readAhead reads up to maxBody+1 bytes of the request body ahead, and lets
// the handler read them again. net/http notices a client that has gone away
// only once the body has been read to its end, so without this a delayed
// POST would still be served (and approve) after its client had left.
func readAhead(r *http.Request) {
	if r.Body == nil || r.Body == http.NoBody {
		return
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	var rest io.Reader = r.Body
	if err != nil {
		// The body keeps no error once read (a cut body reads as ended):
		// the handler must see it.
		rest = errReader{err}
	}
	r.Body = readCloser{io.MultiReader(bytes.NewReader(b), rest), r.Body}
}

// readCloser joins a reader and the closer of the body it replaces.
type readCloser struct {
	io.Reader
	io.Closer
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// chaosError is the answer of a rule's status: 410 and 500 with the texts
// a client sees from the real service's failures, 429 as the rate limit
// answers it. Zero (a delay only) is nil, and so is a status that is not an
// error, which the control plane should have refused.
func chaosError(status int) *apiError {
	switch {
	case status == http.StatusGone:
		return errGone
	case status == http.StatusTooManyRequests:
		return tooManyRequests(1)
	case status == http.StatusInternalServerError:
		return errInternal
	case status >= 400 && status <= 599:
		msg := http.StatusText(status)
		if msg == "" {
			msg = "Error"
		}
		return &apiError{status: status, msg: msg}
	}
	return nil
}

// faultLabel names a rule's fault in metrics: its status, or "delay".
func faultLabel(r *forewarn.ChaosRule) string {
	if r.Status != 0 {
		return strconv.Itoa(r.Status)
	}
	return "delay"
}
