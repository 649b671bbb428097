package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/forewarn/forewarn/client"
	"github.com/spf13/cobra"
)

// eventsOptions are the persistent flags of the in-VM commands: which
// metadata endpoint to ask, with which api-version.
type eventsOptions struct {
	endpoint   string
	apiVersion string
}

// newEventsCommand groups the in-VM commands; alone it lists the events of
// the caller's scope, as events list does.
func newEventsCommand() *cobra.Command {
	e := &eventsOptions{}
	list := &eventsListOptions{events: e}
	cmd := &cobra.Command{
		Use:   "events",
		Short: "In a VM: list, approve and watch the Scheduled Events of this VM's scope",
		Args:  cobra.NoArgs,
		RunE:  list.runE,
	}
	addOutputFlag(cmd, &list.output)
	f := cmd.PersistentFlags()
	f.StringVar(&e.endpoint, "endpoint", "", "metadata endpoint (default $"+client.EndpointEnv+", else "+client.DefaultEndpoint+")")
	f.StringVar(&e.apiVersion, "api-version", client.DefaultAPIVersion, "Scheduled Events api-version")
	cmd.AddCommand(
		newEventsListCommand(e),
		newEventsApproveCommand(e),
		newEventsWatchCommand(e),
	)
	return cmd
}

// client returns a metadata client. One-shot commands print only the final
// error; events watch, which retries for ever, logs each retry to stderr.
func (o *eventsOptions) client(retries io.Writer) *client.Client {
	opts := []client.Option{client.WithEndpoint(o.endpoint), client.WithAPIVersion(o.apiVersion)}
	if retries != nil {
		log := slog.New(slog.NewTextHandler(retries, &slog.HandlerOptions{Level: slog.LevelWarn}))
		opts = append(opts, client.WithLogger(log))
	}
	return client.New(opts...)
}

// defaultMetadataAddr is serve's --metadata-addr by default.
const defaultMetadataAddr = "127.0.0.1:8169"

// explainEndpoint says what an answer of forewarn's admin API means to a
// metadata client: --endpoint names the wrong listener.
func explainEndpoint(err error) error {
	var api *client.APIError
	if errors.As(err, &api) && api.StatusCode == http.StatusNotFound && strings.HasPrefix(api.Message, "no such path") {
		return fmt.Errorf("%w (forewarn's admin API? the metadata endpoint is serve's --metadata-addr, %s by default; set --endpoint or $%s)",
			err, defaultMetadataAddr, client.EndpointEnv)
	}
	return err
}

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

// durationCell shows a DurationInSeconds: "unknown" for -1.
func durationCell(seconds int) string {
	if seconds < 0 {
		return "unknown"
	}
	return (time.Duration(seconds) * time.Second).String()
}
