// Package admin is the operator's REST API and its Go client.
//
// The Server serves the root forewarn.Fleet interface as JSON under /v1/,
// behind a bearer token, on the admin listener (127.0.0.1:8170 by default).
// It also answers /healthz and /metrics without a token. The Client
// implements forewarn.Fleet over HTTP, so the CLI and tests can use either
// the fabric itself or a remote server through the same interface.
//
// Routes:
//
//	GET    /                            302 to /ui/
//	GET    /healthz                     {"status":"ok"}
//	GET    /metrics                     Prometheus metrics
//	GET    /v1/scopes                   list scopes
//	POST   /v1/scopes                   create a scope (forewarn.ScopeSpec) -> 201
//	GET    /v1/scopes/{name}            one scope
//	DELETE /v1/scopes/{name}            delete an empty scope -> 204
//	GET    /v1/vms[?...]                a page of VMs in name order (below)
//	POST   /v1/vms                      create a VM (forewarn.VMSpec) -> 201
//	POST   /v1/batch                    create scopes then VMs, all or none ({"scopes":[...],"vms":[...]}) -> 201
//	GET    /v1/vms/{name}               one VM
//	DELETE /v1/vms/{name}               delete a VM -> 204
//	POST   /v1/vms/{name}/{operation}   restart, redeploy, evict or terminate -> 201 event
//	POST   /v1/vms/{name}/fail          hardware failure -> 201 event
//	POST   /v1/vms/{name}/degrade       degraded hardware, optional {"notice":"7d"} -> 201 event
//	GET    /v1/events[?...]             a page of events in flight, oldest first (below)
//	GET    /v1/events/{id}              one event
//	POST   /v1/events/{id}/approve      approve as the admin -> 200 event
//	POST   /v1/events/{id}/cancel       cancel a Scheduled event -> 200 event
//	POST   /v1/events/{id}/resolve      {"action":"complete"|"retry"} -> 200 event
//	GET    /v1/history[?after=C&limit=N] a page of finished events, newest first (limit 1..10000, default 100)
//	GET    /v1/campaigns                campaigns, newest first
//	POST   /v1/campaigns                start a campaign (forewarn.CampaignSpec) -> 201
//	GET    /v1/campaigns/{id}           one campaign and its progress
//	POST   /v1/campaigns/{id}/{action}  pause, resume or cancel -> 200 campaign
//	GET    /v1/chaos                    chaos rules in force
//	POST   /v1/chaos                    add a chaos rule (forewarn.ChaosSpec) -> 201 rule
//	DELETE /v1/chaos/{id}               end a chaos rule early -> 204
//	GET    /v1/status                   where the state lives, the replicas and the leader
//	GET    /v1/stream                   the live stream of scopes and campaigns (Server-Sent Events)
//	GET    /ui/                         the dashboard (package dashboard), with a session cookie
//	GET    /ui/login, POST /ui/login    the sign-in form; the right token sets the session cookie
//	POST   /ui/logout                   sign out
//
// The listings of VMs and events answer a page, a JSON array, of what their
// filters select: scope, updateDomain and priority for VMs; scope, type,
// status and source for events (in any case). limit is the page size, 1 to
// MaxListLimit, DefaultListLimit if absent. When more follows, a Link
// header (RFC 8288, rel="next") gives the next page: the same query with
// after set to the page's cursor. The history pages the same way, with after
// and limit only, a page of 100 unless limit says otherwise. The Client's
// VMs, Events and HistoryPage follow these links when the query has no
// Limit.
//
// Routes that take no input accept no body or an empty JSON object. Bodies
// are checked before the Fleet sees them: JSON, no unknown fields, and the
// actions of resolve; a negative degrade notice is refused too. Everything
// else about a campaign or a chaos rule is the Fleet's to check.
//
// Every /v1/ route takes the bearer token or the dashboard's session cookie
// (session.go); a change made with the cookie must come from the dashboard's
// own origin (http.CrossOriginProtection), else 403. The live stream sends
// hello, the whole state from the Hub, ready, and then every change
// (stream.go).
//
// The token is kept in a file: ReadToken reads it, and ReadOrCreateToken
// also generates it, at serve's first start (token.go).
//
// Errors are answered as {"error":"<message>","code":"<kind>"} with the
// status StatusCode gives; the Client turns them back into *forewarn.Error
// values that wrap the same sentinel, so errors.Is works alike on both sides.
// The errors that wrap no sentinel have codes too: method_not_allowed (405)
// and internal (500). A 404 without a code comes from another server than
// this API: the Client says so with ErrNotAdminAPI.
package admin
