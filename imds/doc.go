// Package imds is the metadata endpoint that VMs call: the Scheduled Events
// document and approvals (SPEC.md 1-5, 10), a subset of instance metadata
// (SPEC.md 7) and the list of api-versions.
//
// The Server serves what the control plane publishes through
// forewarn.Publisher: one immutable snapshot per scope, with the scope's VMs
// and events in flight. It knows its caller by the connection's source
// address, looked up in an index built from those snapshots, and answers from
// memory: a GET never touches a store. The JSON of each api-version is
// rendered at most once per published snapshot. It calls the control plane
// (forewarn.Metadata) only to approve events and to note that a scope asked
// for its events (enabling, SPEC.md 9).
//
// Choices the contract leaves open:
//
//   - Paths match case-sensitively, as written in SPEC.md 1, with at most one
//     trailing slash: "/metadata/scheduledevents/" is the same path, while
//     "/metadata/scheduledevents//" is a 404. Under /metadata/instance the
//     path walks the instance document: object keys by name, list items by
//     index ("/metadata/instance/network/interface/0/ipv4/ipAddress/0/
//     privateIpAddress").
//   - Query parameter names are case-sensitive; parameters the path does not
//     use are ignored, but any parameter given twice is refused. A query that
//     is not valid percent-encoding is refused with a 400.
//   - HEAD and every method other than GET (and POST on scheduledevents) get
//     405 with an Allow header.
//   - wait_for_change takes true or false (any case); other values are a
//     400, like a timeout_sec outside 1..300.
//   - A long-poll request (wait_for_change=true with last_etag) always
//     answers 200 with the document, as SPEC.md 3 says; If-None-Match applies
//     to every other GET of the document.
//   - format is json (the default) or text; other values are a 400.
//   - A snapshot whose incarnation is lower than the one being served is
//     ignored (and logged), so the endpoint never answers with an older
//     state than one it has already answered with. RemoveScope forgets the
//     scope, so a re-created scope may start again at 1.
//   - POST bodies are matched like the real service's JSON reader: field
//     names case-insensitively. DocumentIncarnation may be a number, a
//     string, null or absent.
//   - /metadata/versions answers any caller; an unknown address is rate
//     limited by address instead of by VM.
//
// The Server records each VM's polls (forewarn.PollLog, Polls): a GET of
// /metadata/scheduledevents answered with the document or with 304 counts,
// a long-poll's answer too, at the time of the answer; an error does not.
// The events a VM was served are those its api-version's document shows
// (a 304 counts as serving the document the VM already has), each with the
// first time. The record lives in this process's memory, from a VM's
// first publish to its leaving the scope.
//
// Chaos (fault injection for testing clients, published by PublishChaos)
// applies to /metadata/scheduledevents, GET and POST, and to every path
// under /metadata/instance; not to /metadata/versions, which any caller may
// ask and which clients use only to discover the service. It runs after the
// caller is known (an unknown address still gets its 403) and before the
// rate limit, so a request it answers takes no token. Only the first rule in
// force that matches the caller's VM or scope is drawn for: it hits the
// request with probability Fraction (Config.Rand). A hit with a status
// answers it at once, changing nothing (no approval, no enabling): 410
// {"error":"Gone"}, 429 with Retry-After: 1 and the rate limit's text, 500
// with the internal-error text. A hit with a delay holds the request on the
// clock (Shutdown ends the hold early; a client that leaves abandons it),
// looks the caller up again, and then serves it normally; with a status as
// well, it answers the status after the delay. Hits are counted in
// forewarn_metadata_chaos_total{fault="410"|"429"|"500"|"delay"}.
//
// Two HTTP engines carry the same handler: net/http (ServeHTTP, what
// forewarntest serves) and fasthttp (ServeFastHTTP, FastServer, what serve's
// metadata listener runs). The handler reads an incoming, which each engine
// fills in, and builds a reply, which each writes. fast.go, fasterror.go and
// gone.go do for fasthttp what net/http's server did for the endpoint: see
// the README's design notes.
package imds
