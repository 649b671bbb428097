// Package agent is the in-VM handler of Scheduled Events that `forewarn
// agent` runs: it watches the metadata document with the client package,
// runs a configured hook for each event that hits its VM as the event moves
// through its life (scheduled, started, completed or cancelled), approves
// events by a per-type policy, and reports what it does through structured
// logs, an optional webhook and Prometheus metrics.
//
// # Hooks
//
// Each hook is a shell command (/bin/sh -c) with a timeout. It gets the
// event in environment variables (FOREWARN_EVENT_ID, FOREWARN_EVENT_TYPE,
// FOREWARN_EVENT_STATUS, FOREWARN_EVENT_NOT_BEFORE in RFC 3339,
// FOREWARN_EVENT_RESOURCES comma-separated, FOREWARN_EVENT_SOURCE,
// FOREWARN_EVENT_DESCRIPTION, FOREWARN_EVENT_DURATION, FOREWARN_VM and
// FOREWARN_HOOK) and as JSON, in the wire form, on stdin.
//
// on_scheduled runs when an event is first seen Scheduled; on_started when
// it is seen Started; when it leaves the document, on_completed runs if it
// had started, had been approved, or its NotBefore had passed, and
// on_cancelled otherwise.
//
// # Once per event and status
//
// A state file records, for every event, which hooks have finished and
// whether the agent approved it; it is rewritten atomically (temporary file,
// fsync, rename) after each change. A hook is recorded once it has
// finished, so a restarted agent reruns nothing that finished; a hook cut
// short by a crash or a kill of the agent (not by a clean stop) may run a
// second time, so hooks should be safe to repeat.
//
// # Approval
//
// Per event type: "never" (the default), "immediately" (on first sight)
// or "after-hook" (once on_scheduled succeeded). Only Scheduled events that
// hit this VM are approved, each once. With LeaderOnly, only the VM named
// first in Resources approves; the others approve too once the event is
// still Scheduled LeaderFallback before its NotBefore (the leader may be
// gone), or when the leader leaves Resources, since the next VM is then
// first.
package agent
