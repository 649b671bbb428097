package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/spf13/cobra"

	"github.com/forewarn/forewarn/client"
)

// eventsOptions are the persistent flags of the in-VM commands: which
// metadata endpoint to ask, from which local address, with which
// api-version.
type eventsOptions struct {
	endpoint   string
	sourceAddr string
	apiVersion string
}

// sourceAddrHelp is the help of --source-addr, of agent and events.
const sourceAddrHelp = "connect to the metadata endpoint from this local address, which it knows a VM by: to act as one of several VMs on one host (tests, drills)"

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
	f.StringVar(&e.sourceAddr, "source-addr", "", sourceAddrHelp)
	f.StringVar(&e.apiVersion, "api-version", client.DefaultAPIVersion, "Scheduled Events api-version")
	cmd.AddCommand(
		newEventsListCommand(e),
		newEventsApproveCommand(e),
		newEventsWatchCommand(e),
	)
	return cmd
}

// client returns a metadata client; it fails only on a --source-addr that
// is no IP address. One-shot commands print only the final error; events
// watch, which retries for ever, logs each retry to stderr.
func (o *eventsOptions) client(retries io.Writer) (*client.Client, error) {
	opts := []client.Option{client.WithEndpoint(o.endpoint), client.WithAPIVersion(o.apiVersion)}
	if o.sourceAddr != "" {
		addr, err := client.ParseSourceAddr(o.sourceAddr)
		if err != nil {
			return nil, fmt.Errorf("--source-addr %w", err)
		}
		opts = append(opts, client.WithSourceAddr(addr))
	}
	if retries != nil {
		log := slog.New(slog.NewTextHandler(retries, &slog.HandlerOptions{Level: slog.LevelWarn}))
		opts = append(opts, client.WithLogger(log))
	}
	return client.New(opts...), nil
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
