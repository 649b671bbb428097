package main

import (
	"fmt"
	"io"

	"github.com/forewarn/forewarn/client"
)

// documentColumn is a column of the table of a document's events, and the
// api-version that brought its field (SPEC.md 2), "" for the fields of
// every version.
type documentColumn struct {
	header string
	since  string
	cell   func(client.Event) string
}

// documentColumns are the columns of a document's events, in order.
var documentColumns = []documentColumn{
	{"ID", "", func(e client.Event) string { return e.EventId }},
	{"TYPE", "", func(e client.Event) string { return e.EventType }},
	{"STATUS", "", func(e client.Event) string { return e.EventStatus }},
	{"RESOURCES", "", func(e client.Event) string { return listCell(e.Resources) }},
	{"NOT-BEFORE", "", func(e client.Event) string { return timeCell(e.NotBefore) }},
	{"DURATION", "2020-07-01", func(e client.Event) string { return durationCell(e.DurationInSeconds) }},
	{"SOURCE", "2019-08-01", func(e client.Event) string { return e.EventSource }},
	{"DESCRIPTION", "2019-04-01", func(e client.Event) string { return e.Description }},
}

// documentTable returns the table of a document's events for an
// api-version: the columns of the fields that version has. api-versions
// are dates, which compare as strings.
func documentTable(apiVersion string) table[client.Event] {
	var cols []documentColumn
	for _, c := range documentColumns {
		if apiVersion >= c.since {
			cols = append(cols, c)
		}
	}
	t := table[client.Event]{row: func(e client.Event) []string {
		cells := make([]string, len(cols))
		for i, c := range cols {
			cells[i] = c.cell(e)
		}
		return cells
	}}
	for _, c := range cols {
		t.header = append(t.header, c.header)
	}
	return t
}

// printDocument writes a document of the given api-version: its wire JSON,
// or its incarnation and a table of its events.
func printDocument(w io.Writer, format outputFormat, doc *client.Document, apiVersion string) error {
	if format == outputJSON {
		return writeJSON(w, doc)
	}
	if _, err := fmt.Fprintf(w, "DocumentIncarnation: %d\n", doc.DocumentIncarnation); err != nil {
		return err
	}
	return documentTable(apiVersion).write(w, doc.Events)
}
