// Package agent is the in-VM handler of Scheduled Events that `forewarn
// agent` runs: it watches the metadata document with the client package,
// runs a configured hook for each event that hits its VM as the event moves
// through its life (scheduled, started, completed or cancelled), approves
// events by a per-type policy, and reports what it does through structured
// logs, an optional webhook and Prometheus metrics.
//
// # Configuration
//
// ParseConfig and LoadConfig read YAML key by key, the way yaml.v3 would
// decode it into Config (anchors, merges, null as an absent key), but go
// on past a fault: every problem becomes a Problem with its key path and
// line, in words rather than Go types, and Validate adds what is wrong
// with the values. New checks the state file on top, so that a bad
// configuration is refused at start, whole, in a *ConfigError, rather than
// found when an event arrives or retried for ever. ReadConfig and SetBy
// let a caller put its flags over the file and have them checked, and
// blamed, with it.
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
