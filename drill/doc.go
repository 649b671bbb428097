// Package drill runs readiness drills: a file of steps (a user operation,
// a campaign, an eviction, a hardware failure, a wait) that a running
// forewarn carries out, and per step what must hold of the fleet's
// applications (each hit VM approves in time, no event starts unapproved,
// every VM polls, the application is healthy again). The result is a
// Report, written as a table, Markdown, JSON or JUnit XML.
//
// Read file.go (the drill file), then run.go (a step's life), check.go
// (the expectations), report.go (the outputs).
package drill
