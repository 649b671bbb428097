package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
)

// drillServeOptions are the flags of drill run --serve: a forewarn of the
// drill's own, for the time of the drill.
type drillServeOptions struct {
	on           bool
	metadataAddr string
	timeScale    float64
	dataDir      string
}

func (o *drillServeOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.BoolVar(&o.on, "serve", false, "run the drill against a forewarn of its own, serving until the drill ends (as serve --dev, with its state in a temporary directory)")
	f.StringVar(&o.metadataAddr, "metadata-addr", defaultMetadataAddr, "with --serve: the address of its metadata endpoint, which the applications under test poll")
	f.Float64Var(&o.timeScale, "time-scale", 60, "with --serve: divide notice and simulated impact times by this factor")
	f.StringVar(&o.dataDir, "serve-data-dir", "", "with --serve: keep its state here rather than in a temporary directory removed at the end")
}

// check refuses the flags of --serve without it.
func (o *drillServeOptions) check(cmd *cobra.Command) error {
	if o.on {
		return nil
	}
	for _, name := range []string{"metadata-addr", "time-scale", "serve-data-dir"} {
		if cmd.Flags().Changed(name) {
			return fmt.Errorf("--%s is a flag of --serve: give --serve too, or leave it out", name)
		}
	}
	return nil
}

// run serves, runs fn against the server's admin API, then stops serving.
// The server logs warnings and errors to stderr.
func (o *drillServeOptions) run(ctx context.Context, stderr io.Writer, fn func(context.Context, forewarn.Fleet) error) error {
	dir := o.dataDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "forewarn-drill-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	serve := newServeOptions()
	// serve calls listening for the metadata listener, then for the admin
	// API's, whose address the channel hands over.
	var metadataAddr net.Addr
	adminAddr := make(chan net.Addr, 1)
	serve.listening = func(name string, addr net.Addr) {
		if name == "admin" {
			adminAddr <- addr
		} else {
			metadataAddr = addr
		}
	}
	cmd := serve.command()
	cmd.SetArgs([]string{"--dev", "--data-dir", dir, "--metadata-addr", o.metadataAddr,
		"--admin-addr", "127.0.0.1:0", "--time-scale", strconv.FormatFloat(o.timeScale, 'g', -1, 64),
		"--log-level", "warn"})
	cmd.SetErr(stderr)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- cmd.ExecuteContext(sctx) }()
	defer func() {
		stop()
		<-served
	}()
	var addr net.Addr
	select {
	case addr = <-adminAddr:
	case err := <-served:
		served <- nil
		return fmt.Errorf("--serve: %w", err)
	case <-ctx.Done():
		return ctx.Err()
	}
	token, err := admin.ReadToken(filepath.Join(dir, tokenFile))
	if err != nil {
		return fmt.Errorf("--serve: %w", err)
	}
	fmt.Fprintf(stderr, "serving for the drill: metadata endpoint http://%s, admin API and dashboard http://%s (token in %s)\n",
		metadataAddr, addr, filepath.Join(dir, tokenFile))
	client := admin.NewClient("http://"+addr.String(), token,
		admin.WithHTTPClient(&http.Client{Timeout: 30 * time.Second}))
	err = fn(ctx, client)
	if errors.Is(err, context.Canceled) && ctx.Err() == nil {
		return errors.New("--serve: the server stopped during the drill")
	}
	return err
}
