package main

import (
	"github.com/spf13/cobra"
)

// eventsListOptions are the flags of events list.
type eventsListOptions struct {
	events *eventsOptions
	output outputFormat
}

func newEventsListCommand(e *eventsOptions) *cobra.Command {
	o := &eventsListOptions{events: e}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the Scheduled Events of this VM's scope",
		Args:  cobra.NoArgs,
		RunE:  o.runE,
	}
	addOutputFlag(cmd, &o.output)
	return cmd
}

// runE reads the document and prints it.
func (o *eventsListOptions) runE(cmd *cobra.Command, _ []string) error {
	c, err := o.events.client(nil)
	if err != nil {
		return err
	}
	doc, err := c.Get(cmd.Context())
	if err != nil {
		return explainEndpoint(err)
	}
	return printDocument(cmd.OutOrStdout(), o.output, doc, o.events.apiVersion)
}
