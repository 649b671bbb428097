package main

import (
	"io"

	"github.com/forewarn/forewarn"
)

// eventTable prints events in flight. FAILED lists the VMs on which the
// actuator has failed for good: the event stays Started until resolved.
var eventTable = table[*forewarn.Event]{
	header: []string{"ID", "TYPE", "STATUS", "SCOPE", "RESOURCES", "NOT-BEFORE", "SOURCE", "APPROVED-BY", "FAILED"},
	row: func(e *forewarn.Event) []string {
		return []string{
			e.ID, string(e.Type), string(e.Status), e.Scope, listCell(e.Resources),
			timeCell(e.NotBefore), string(e.Source), e.ApprovedBy, listCell(e.Failed),
		}
	},
}

// printEvent writes an event as it is after the command's change: one in
// flight as maintenance list shows it, one that the change ended
// (cancelled, or completed by resolve) as maintenance history shows it,
// with its outcome. JSON is the admin API's object either way: an ended
// event keeps the status it had and has its outcome set.
func printEvent(w io.Writer, format outputFormat, e *forewarn.Event) error {
	if !e.InFlight() {
		return historyTable.printOne(w, format, e)
	}
	return eventTable.printOne(w, format, e)
}

// historyTable prints finished and cancelled events.
var historyTable = table[*forewarn.Event]{
	header: []string{"ID", "TYPE", "OUTCOME", "SCOPE", "RESOURCES", "SOURCE", "APPROVED-BY", "STARTED", "ENDED"},
	row: func(e *forewarn.Event) []string {
		return []string{
			e.ID, string(e.Type), string(e.Outcome), e.Scope, listCell(e.Resources),
			string(e.Source), e.ApprovedBy, timeCell(e.StartedAt), timeCell(e.EndedAt),
		}
	},
}
