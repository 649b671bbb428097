package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/forewarn/forewarn/admin"
)

// longpollOptions are the flags of `fleetload longpoll`.
type longpollOptions struct {
	layout      layout
	endpoint    string // the metadata endpoint's base URL
	admin       string // the admin API's base URL
	trigger     string // or a URL to POST to, to make the change
	tokenFile   string
	clients     int
	dialers     int
	apiVersion  string
	pollTimeout time.Duration // timeout_sec of the long-polls
	checkHeld   bool
	settle      time.Duration
	wait        time.Duration
	target      time.Duration
	serverPID   int
	json        bool
}

// parseLongpoll reads the command line of `fleetload longpoll`.
func parseLongpoll(args []string, stderr io.Writer) (longpollOptions, error) {
	o := longpollOptions{layout: layout{prefix: "lp", scopes: 1, vms: 100, updateDomains: 5,
		base: mustAddr("127.2.0.1")}}
	fs := flag.NewFlagSet("fleetload longpoll", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o.layout.register(fs)
	fs.StringVar(&o.endpoint, "url", "", "the metadata endpoint, http://IP:PORT (required)")
	fs.StringVar(&o.admin, "admin", "", "the admin API, http://HOST:PORT, which makes the change: a restart (this or -trigger)")
	fs.StringVar(&o.trigger, "trigger", "", "make the change by a POST to this URL instead, e.g. the baseline's http://IP:PORT/trigger")
	fs.StringVar(&o.tokenFile, "token-file", "", "the admin token's file (default: $FOREWARN_TOKEN)")
	fs.IntVar(&o.clients, "clients", 10000, "long-polling clients, spread over the first scope's VMs")
	fs.IntVar(&o.dialers, "dialers", 200, "connections being opened at once")
	fs.StringVar(&o.apiVersion, "api-version", "2020-07-01", "the api-version asked for")
	fs.DurationVar(&o.pollTimeout, "poll-timeout", 5*time.Minute, "the long-polls' timeout_sec (1s to 5m): they must not time out before the change")
	fs.BoolVar(&o.checkHeld, "check-held", true, "wait until the kernel's socket table (/proc/net/tcp) shows every request read by the server")
	fs.DurationVar(&o.settle, "settle", time.Second, "wait this long once every long-poll is held, before the change")
	fs.DurationVar(&o.wait, "wait", 30*time.Second, "how long after the change to wait for the answers")
	fs.DurationVar(&o.target, "target", 200*time.Millisecond, "the p99 to mark PASS (BENCHMARKS.md)")
	fs.IntVar(&o.serverPID, "server-pid", 0, "the server's process id, to report its CPU time (0: not reported)")
	fs.BoolVar(&o.json, "json", false, "print the result as JSON on stdout, the summary on stderr")
	err := parseFlags(fs, args, func() error { return o.check() })
	return o, err
}

// check tells what is wrong with the options, if anything.
func (o longpollOptions) check() error {
	if err := o.layout.check(); err != nil {
		return err
	}
	if _, err := endpointAddr(o.endpoint); err != nil {
		return err
	}
	if u, err := url.Parse(o.trigger); o.trigger != "" && (err != nil || u.Scheme != "http" || u.Host == "") {
		return fmt.Errorf("-trigger %q: want http://HOST:PORT/PATH", o.trigger)
	}
	switch {
	case (o.admin == "") == (o.trigger == ""):
		return errors.New("give -admin (the admin API, which restarts a VM) or -trigger (a URL to POST to): one makes the change")
	case o.clients < 1:
		return fmt.Errorf("-clients %d: want at least 1", o.clients)
	case o.dialers < 1:
		return fmt.Errorf("-dialers %d: want at least 1", o.dialers)
	case o.pollTimeout < time.Second || o.pollTimeout > 5*time.Minute || o.pollTimeout%time.Second != 0:
		return fmt.Errorf("-poll-timeout %v: want whole seconds from 1s to 5m", o.pollTimeout)
	case o.wait <= 0:
		return fmt.Errorf("-wait %v: want more than 0", o.wait)
	}
	return nil
}

// runLongpoll is `fleetload longpoll`.
func runLongpoll(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseLongpoll(args, stderr)
	if err != nil {
		return err
	}
	maker, err := o.changeMaker()
	if err != nil {
		return usageError{err}
	}
	res, err := longpoll(ctx, o, maker, stderr)
	if err != nil {
		return err
	}
	return report(stdout, stderr, o.json, res)
}

// changeMaker is what makes the change: a POST to -trigger, else a
// restart through the admin API with its token.
func (o longpollOptions) changeMaker() (changeMaker, error) {
	if o.trigger != "" {
		return poster{url: o.trigger}, nil
	}
	token, err := adminToken(o.tokenFile)
	if err != nil {
		return nil, err
	}
	return restarter{layout: o.layout, fleet: admin.NewClient(o.admin, token)}, nil
}

// longpoll runs the load: it opens the long-polls, waits until they are
// held, makes the change and collects the answers. Progress goes to logw.
func longpoll(ctx context.Context, o longpollOptions, maker changeMaker, logw io.Writer) (*longpollResult, error) {
	addrs, err := o.layout.addrs()
	if err != nil {
		return nil, err
	}
	addrs = addrs[:o.layout.vms] // the first scope
	server, _ := endpointAddr(o.endpoint)
	tag, err := currentTag(ctx, o, addrs[0])
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(logw, "longpoll: opening %d long-polls over %d VMs, last_etag %q ...\n", o.clients, len(addrs), tag)
	g, err := openLongPolls(ctx, o, server, addrs, tag)
	if err != nil {
		return nil, err
	}
	defer g.close()
	held, err := g.waitHeld(ctx, o, server)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(logw, "longpoll: %s; %s\n", held, maker.describe())
	return g.change(ctx, o, maker, tag, held)
}
