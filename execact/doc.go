// Package execact is the exec actuator: when an event starts, it carries the
// event out on each affected VM by running the operator's command, such as
// `virsh reboot {{.VM}}`, once per VM.
//
// The command runs with /bin/sh -c. Before it runs, Go template fields in it
// are expanded from Vars ({{.VM}}, {{.EventID}}, {{.EventType}}, ...; the
// quote function shell-quotes a value: {{quote .EventDescription}}). Its
// environment is the server's plus the event and the VM in FOREWARN_*
// variables (see Environ), which are safer than template fields for text
// that could hold shell syntax.
//
// Each attempt runs in its own process group, with a timeout. On timeout,
// or when the context is cancelled, the whole group gets SIGTERM and, after
// a short grace period, SIGKILL, so that children such as a background
// sleep die with it; whatever the command leaves behind in its group is
// killed when the attempt ends. A command that must leave something running
// has to start it in a session of its own (setsid). Every line the command
// writes to stdout or stderr is logged with the event, the VM and the
// attempt, and the end of each attempt with its exit status.
//
// A failed attempt is retried after an exponential backoff with jitter,
// timed by the injected clock. Once the last attempt has failed, Actuate
// returns an error naming the VM, the number of attempts and the last exit
// status and output line; the control plane then marks the VM failed and
// holds the event Started until an admin resolves it.
//
// Commands must be idempotent. A run that was under way when the server
// died is run again from the start after a restart, and an admin may retry
// a failed VM, so the command can run more than once for the same event and
// VM (FOREWARN_EVENT_ID tells the runs of one event apart from others).
//
// The attempt timeout and the grace period before SIGKILL are measured in
// real time, as they bound real processes; only the waits between attempts
// use the clock.
package execact
