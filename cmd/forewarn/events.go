package main

import (
	"fmt"
	"io"
	"log/slog"
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

// documentTable prints the events of a Scheduled Events document.
var documentTable = table[client.Event]{
	header: []string{"ID", "TYPE", "STATUS", "RESOURCES", "NOT-BEFORE", "DURATION", "SOURCE", "DESCRIPTION"},
	row: func(e client.Event) []string {
		return []string{
			e.EventId, e.EventType, e.EventStatus, listCell(e.Resources), timeCell(e.NotBefore),
			durationCell(e.DurationInSeconds), e.EventSource, e.Description,
		}
	},
}

// printDocument writes a document: its wire JSON, or its incarnation and a
// table of its events.
func printDocument(w io.Writer, format outputFormat, doc *client.Document) error {
	if format == outputJSON {
		return writeJSON(w, doc)
	}
	if _, err := fmt.Fprintf(w, "DocumentIncarnation: %d\n", doc.DocumentIncarnation); err != nil {
		return err
	}
	return documentTable.write(w, doc.Events)
}

// durationCell shows a DurationInSeconds: "unknown" for -1.
func durationCell(seconds int) string {
	if seconds < 0 {
		return "unknown"
	}
	return (time.Duration(seconds) * time.Second).String()
}
