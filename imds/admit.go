package imds

import (
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// Long-poll timeouts (SPEC.md 3).
const (
	defaultPollTimeout = 60 * time.Second
	maxPollTimeout     = 300 * time.Second
)

// request is what the checks of SPEC.md 1 found out about a request that
// passed them.
type request struct {
	// version indexes the path's api-versions (eventVersions or
	// instanceVersions); unused on /metadata/versions.
	version int
	addr    netip.Addr
	// caller is the VM; its vm is nil for an unknown caller of
	// /metadata/versions.
	caller caller
	poll   longPoll
	text   bool // format=text
}

// longPoll holds the long-poll parameters of a GET of the document.
type longPoll struct {
	// wait is set for wait_for_change=true with a last_etag: a long-poll.
	wait bool
	// lastETag is last_etag's opaque part, without quotes.
	lastETag string
	timeout  time.Duration
}

// admit runs the checks of SPEC.md 1 after path and method, in order:
// X-Forwarded-For, Metadata header, query, caller, and fills in req, which
// the caller provides so that it can live on its stack. Chaos and the rate
// limit (rateLimit) follow.
func (s *Server) admit(in *incoming, rt route, req *request) *apiError {
	if in.forwarded {
		return errForwarded
	}
	// Exactly one Metadata field: two are one value, "true, false" or
	// "true, true", as if sent on one line (RFC 9110 5.3), and not "true".
	if in.metadataFields != 1 || !strings.EqualFold(in.metadata, "true") {
		return errMetadataHeader
	}
	// The query is a local of its own, apart from req: a small map that
	// does not escape lives on the stack.
	q := query{}
	if aerr := q.parse(in.rawQuery); aerr != nil {
		return aerr
	}
	if aerr := req.parseParams(rt, in.method, q); aerr != nil {
		return aerr
	}
	req.addr = in.addr
	c, known := s.lookup(req.addr)
	if !known && rt != routeVersions {
		return forbidden(addrText(req.addr, in))
	}
	req.caller = c
	return nil
}

// rateLimit takes a token from the bucket of the caller c at addr: the last
// check of SPEC.md 1. It takes no *request, which would then escape to the
// heap with the bucket's key.
func (s *Server) rateLimit(in *incoming, c caller, addr netip.Addr) *apiError {
	if s.limiter == nil {
		return nil
	}
	if ok, wait := s.limiter.allow(rateKey(c, addr, in), in.now); !ok {
		return tooManyRequests(wait)
	}
	return nil
}

// parseParams checks api-version and the other parameters the route uses.
func (req *request) parseParams(rt route, method string, q query) *apiError {
	switch rt {
	case routeEvents:
		v, ok := eventVersionSet.index[q["api-version"]]
		if !ok {
			return badVersion(eventVersionSet)
		}
		req.version = v
		if method == http.MethodGet {
			return req.parsePoll(q)
		}
	case routeInstance:
		v, ok := instanceVersionSet.index[q["api-version"]]
		if !ok {
			return badVersion(instanceVersionSet)
		}
		req.version = v
		return req.parseFormat(q)
	}
	return nil
}

// parsePoll reads wait_for_change, last_etag and timeout_sec.
func (req *request) parsePoll(q query) *apiError {
	wait := false
	if v, ok := q["wait_for_change"]; ok {
		switch {
		case strings.EqualFold(v, "true"):
			wait = true
		case strings.EqualFold(v, "false"):
		default:
			return badRequest("Bad request. wait_for_change must be true or false")
		}
	}
	req.poll.timeout = defaultPollTimeout
	if v, ok := q["timeout_sec"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > int(maxPollTimeout/time.Second) {
			return badRequest("Bad request. timeout_sec must be a whole number of seconds from 1 to %d", int(maxPollTimeout/time.Second))
		}
		req.poll.timeout = time.Duration(n) * time.Second
	}
	if last, ok := q["last_etag"]; ok && wait {
		req.poll.wait = true
		req.poll.lastETag = opaqueETag(last)
	}
	return nil
}

// parseFormat reads format: json (the default) or text.
func (req *request) parseFormat(q query) *apiError {
	f, ok := q["format"]
	switch {
	case !ok || strings.EqualFold(f, "json"):
	case strings.EqualFold(f, "text"):
		req.text = true
	default:
		return badRequest("Bad request. format must be json or text")
	}
	return nil
}

// rateKey names the bucket of a request: its VM, or for an unknown caller its
// address.
func rateKey(c caller, addr netip.Addr, in *incoming) string {
	if c.vm != nil {
		return c.rateKey
	}
	return "addr:" + addrText(addr, in)
}

// addrText is the caller's address for messages and keys.
func addrText(addr netip.Addr, in *incoming) string {
	if addr.IsValid() {
		return addr.String()
	}
	return in.remote()
}
