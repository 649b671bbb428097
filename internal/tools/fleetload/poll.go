package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// pollOptions are the flags of `fleetload poll`.
type pollOptions struct {
	layout     layout
	endpoint   string
	apiVersion string
	interval   time.Duration
	duration   time.Duration
	approve    float64
	burstVMs   int
	burstSize  int
	timeout    time.Duration
	seed       uint64
	target     time.Duration
	json       bool
}

// parsePoll reads the command line of `fleetload poll`.
func parsePoll(args []string, stderr io.Writer) (pollOptions, error) {
	o := pollOptions{layout: defaultPollLayout()}
	fs := flag.NewFlagSet("fleetload poll", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o.register(fs, time.Minute)
	fs.BoolVar(&o.json, "json", false, "print the result as JSON on stdout, the summary on stderr")
	err := parseFlags(fs, args, func() error { return o.check(o.duration) })
	return o, err
}

// register adds the flags of the poll load to fs, -duration's default
// being duration.
func (o *pollOptions) register(fs *flag.FlagSet, duration time.Duration) {
	o.layout.register(fs)
	fs.StringVar(&o.endpoint, "url", "", "the metadata endpoint, http://IP:PORT (required)")
	fs.StringVar(&o.apiVersion, "api-version", "2020-07-01", "the api-version asked for")
	fs.DurationVar(&o.interval, "interval", time.Second, "each VM GETs the document once an interval")
	fs.DurationVar(&o.duration, "duration", duration, "how long the VMs poll")
	fs.Float64Var(&o.approve, "approve", 0.5, "probability that a VM named first in a Scheduled event's Resources approves it")
	fs.IntVar(&o.burstVMs, "burst-vms", 20, "VMs that fire bursts, to draw intended 429s (0: none)")
	fs.IntVar(&o.burstSize, "burst-size", 15, "GETs in a burst, back to back (more than the limiter's burst of 10)")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Second, "how long one request may take")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the start times, bursts and approvals")
	fs.DurationVar(&o.target, "target", 5*time.Millisecond, "the GET p99 to mark PASS (BENCHMARKS.md)")
}

// check tells what is wrong with the options, if anything; a burst VM
// fires a burst once every burstEvery.
func (o pollOptions) check(burstEvery time.Duration) error {
	if err := o.layout.check(); err != nil {
		return err
	}
	if _, err := endpointAddr(o.endpoint); err != nil {
		return err
	}
	switch {
	case o.interval <= 0:
		return fmt.Errorf("-interval %v: want more than 0", o.interval)
	case o.duration < o.interval:
		return fmt.Errorf("-duration %v: want at least the interval, %v", o.duration, o.interval)
	case o.approve < 0 || o.approve > 1:
		return fmt.Errorf("-approve %g: want a probability, 0 to 1", o.approve)
	case o.burstVMs < 0 || o.burstVMs > o.layout.size():
		return fmt.Errorf("-burst-vms %d: want 0 to the %d VMs", o.burstVMs, o.layout.size())
	case o.burstVMs > 0 && o.burstSize < 1:
		return fmt.Errorf("-burst-size %d: want at least 1", o.burstSize)
	case o.burstVMs > 0 && burstEvery < 2*o.interval:
		return fmt.Errorf("bursts need at least two intervals: %v is less", burstEvery)
	case o.timeout <= 0:
		return fmt.Errorf("-timeout %v: want more than 0", o.timeout)
	}
	return nil
}

// runPoll is `fleetload poll`.
func runPoll(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parsePoll(args, stderr)
	if err != nil {
		return err
	}
	res, err := poll(ctx, o, stderr)
	if err != nil {
		return err
	}
	return report(stdout, stderr, o.json, res)
}

// poll runs a poller per VM for o.duration and merges what they saw.
// Progress goes to logw every 10 s.
func poll(ctx context.Context, o pollOptions, logw io.Writer) (*pollResult, error) {
	var progress pollProgress
	pollers, err := newPollers(o, &progress)
	if err != nil {
		return nil, err
	}
	if err := runPollers(ctx, pollers, o.duration, o.duration, &progress, logw, 10*time.Second); err != nil {
		return nil, err
	}
	return mergePollers(o, pollers, o.duration), nil
}

// newPollers returns a poller per VM of o.layout, o.burstVMs of them
// spread over the fleet to fire bursts.
func newPollers(o pollOptions, progress *pollProgress) ([]*poller, error) {
	addrs, err := o.layout.addrs()
	if err != nil {
		return nil, err
	}
	pollers := make([]*poller, len(addrs))
	every := max(len(addrs)/max(o.burstVMs, 1), 1)
	for i, addr := range addrs {
		rng := rand.New(rand.NewPCG(o.seed, uint64(i)))
		burst := o.burstVMs > 0 && i%every == 0 && i/every < o.burstVMs
		pollers[i] = newPoller(o, o.layout.vmName(i), addr, rng, burst, progress)
	}
	return pollers, nil
}

// runPollers runs the pollers from now for d, those with a burst firing it
// once every burstEvery, and writes progress to logw every logEvery. It
// returns when every poller has stopped: ctx's error if it ended first.
func runPollers(ctx context.Context, pollers []*poller, d, burstEvery time.Duration,
	progress *pollProgress, logw io.Writer, logEvery time.Duration) error {
	o := pollers[0].o
	fmt.Fprintf(logw, "poll: %d VMs from %v to %v, every %v for %v ...\n",
		len(pollers), pollers[0].addr, pollers[len(pollers)-1].addr, o.interval, d)
	start := time.Now()
	var wg sync.WaitGroup
	for _, p := range pollers {
		wg.Go(func() { p.run(ctx, start, d, burstEvery) })
	}
	stop := progress.log(logw, start, logEvery)
	wg.Wait()
	stop()
	return ctx.Err()
}

// pollProgress counts requests and errors as they happen, for the
// progress lines.
type pollProgress struct {
	requests atomic.Int64
	errors   atomic.Int64
}

// log writes a progress line to w every period until stop is called.
func (p *pollProgress) log(w io.Writer, start time.Time, period time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fmt.Fprintf(w, "poll: %v, %d requests, %d errors\n",
					time.Since(start).Round(time.Second), p.requests.Load(), p.errors.Load())
			}
		}
	})
	return func() { close(done); wg.Wait() }
}
