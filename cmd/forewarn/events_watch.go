package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/forewarn/forewarn/client"
	"github.com/spf13/cobra"
)

// eventsWatchOptions are the flags of events watch.
type eventsWatchOptions struct {
	events *eventsOptions
	output outputFormat
}

func newEventsWatchCommand(e *eventsOptions) *cobra.Command {
	o := &eventsWatchOptions{events: e}
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Print a line at every change of the document, until interrupted",
		Long: "Print a line at every change of the document, until interrupted: the\n" +
			"incarnation and a summary of each event, or with -o json the document\n" +
			"on one line.",
		Args: cobra.NoArgs,
		RunE: o.runE,
	}
	addOutputFlag(cmd, &o.output)
	return cmd
}

// runE watches until the context ends, which is a normal end.
func (o *eventsWatchOptions) runE(cmd *cobra.Command, _ []string) error {
	w := cmd.OutOrStdout()
	c, err := o.events.client(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	err = c.Watch(cmd.Context(), func(doc *client.Document) error {
		return o.print(w, doc)
	})
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return explainEndpoint(err)
}

// print writes one line for a document.
func (o *eventsWatchOptions) print(w io.Writer, doc *client.Document) error {
	if o.output == outputJSON {
		b, err := json.Marshal(doc)
		if err != nil {
			return fmt.Errorf("encode document: %w", err)
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	_, err := fmt.Fprintln(w, summary(doc))
	return err
}

// summary says a document in one line: "incarnation 3: <id> Reboot
// Scheduled web-0 not-before 2026-01-02T15:04:05Z (User); ...".
func summary(doc *client.Document) string {
	if len(doc.Events) == 0 {
		return fmt.Sprintf("incarnation %d: no events", doc.DocumentIncarnation)
	}
	parts := make([]string, len(doc.Events))
	for i, e := range doc.Events {
		s := fmt.Sprintf("%s %s %s %s", e.EventId, e.EventType, e.EventStatus, listCell(e.Resources))
		if !e.NotBefore.IsZero() {
			s += " not-before " + timeCell(e.NotBefore)
		}
		parts[i] = s + " (" + e.EventSource + ")"
	}
	return fmt.Sprintf("incarnation %d: %s", doc.DocumentIncarnation, strings.Join(parts, "; "))
}
