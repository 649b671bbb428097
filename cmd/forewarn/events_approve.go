package main

import (
	"errors"
	"fmt"

	"github.com/forewarn/forewarn/client"
	"github.com/spf13/cobra"
)

// eventsApproveOptions are the flags of events approve.
type eventsApproveOptions struct {
	events *eventsOptions
	all    bool
}

func newEventsApproveCommand(e *eventsOptions) *cobra.Command {
	o := &eventsApproveOptions{events: e}
	cmd := &cobra.Command{
		Use:   "approve ID... | --all",
		Short: "Approve events of this VM's scope, so that they start now",
		RunE:  o.runE,
	}
	cmd.Flags().BoolVar(&o.all, "all", false, "approve every Scheduled event of the document")
	return cmd
}

// runE approves the events named, or every Scheduled one with --all, and
// prints a line for each.
func (o *eventsApproveOptions) runE(cmd *cobra.Command, ids []string) error {
	switch {
	case o.all && len(ids) > 0:
		return errors.New("give event IDs or --all, not both")
	case !o.all && len(ids) == 0:
		return errors.New("no event to approve: give one or more event IDs, or --all")
	}
	c, err := o.events.client(nil)
	if err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	if o.all {
		doc, err := c.Get(cmd.Context())
		if err != nil {
			return explainEndpoint(err)
		}
		if ids = scheduledIDs(doc); len(ids) == 0 {
			_, err := fmt.Fprintln(w, "no Scheduled events to approve")
			return err
		}
	}
	if err := c.Approve(cmd.Context(), ids...); err != nil {
		return explainEndpoint(err)
	}
	for _, id := range ids {
		if _, err := fmt.Fprintf(w, "approved %s\n", id); err != nil {
			return err
		}
	}
	return nil
}

// scheduledIDs returns the ids of the document's Scheduled events.
func scheduledIDs(doc *client.Document) []string {
	var ids []string
	for _, e := range doc.Events {
		if e.EventStatus == client.EventStatusScheduled {
			ids = append(ids, e.EventId)
		}
	}
	return ids
}
