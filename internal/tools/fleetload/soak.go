package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/admin"
)

// soakOptions are the flags of `fleetload soak`.
type soakOptions struct {
	poll         pollOptions
	admin        string // the admin API's base URL
	tokenFile    string
	warmup       time.Duration
	burstEvery   time.Duration
	opEvery      time.Duration
	collectEvery time.Duration
	lag          time.Duration
	logEvery     time.Duration
	settle       settleOptions
	growth       growth
	json         bool
}

// parseSoak reads the command line of `fleetload soak`.
func parseSoak(args []string, stderr io.Writer) (soakOptions, error) {
	o := soakOptions{poll: pollOptions{layout: defaultPollLayout()}}
	fs := flag.NewFlagSet("fleetload soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o.poll.register(fs, 10*time.Minute)
	fs.StringVar(&o.admin, "admin", "", "the admin API, http://HOST:PORT (required): maintenance, events, /metrics")
	fs.StringVar(&o.tokenFile, "token-file", "", "the admin token's file (default: $FOREWARN_TOKEN)")
	fs.DurationVar(&o.warmup, "warmup", time.Minute, "poll this long before serve's runtime is measured, then -duration more")
	fs.DurationVar(&o.burstEvery, "burst-every", time.Minute, "each burst VM fires a burst once in this long")
	fs.DurationVar(&o.opEvery, "op-every", time.Second, "a user operation (and a check of the campaign) this often")
	fs.DurationVar(&o.collectEvery, "collect-every", 30*time.Second, "read the events in flight and the history this often")
	fs.DurationVar(&o.lag, "lag", 2*time.Second, "how long a change may take to reach the documents")
	fs.DurationVar(&o.logEvery, "log-every", 30*time.Second, "a progress line this often")
	fs.DurationVar(&o.settle.wait, "settle", 5*time.Second, "once the VMs stop, wait this long before sampling serve's runtime")
	fs.DurationVar(&o.settle.every, "sample-every", time.Second, "sample serve's /metrics this often")
	fs.IntVar(&o.settle.samples, "samples", 5, "take at least this many samples, and the least of them")
	fs.DurationVar(&o.settle.gcWait, "gc-wait", 130*time.Second, "sample on until a garbage collection has run, at most this long (0: do not wait)")
	fs.IntVar(&o.growth.goroutines, "goroutine-growth", 50, "serve may end with this many more goroutines")
	fs.Float64Var(&o.growth.goroutinesPct, "goroutine-growth-pct", 10, "or this percentage more, if that is more")
	fs.Float64Var(&o.growth.heapPct, "heap-growth-pct", 20, "serve's heap in use may grow by this percentage")
	fs.Float64Var(&o.growth.heapMB, "heap-growth-mb", 8, "plus this many MiB")
	fs.BoolVar(&o.json, "json", false, "print the result as JSON on stdout, the summary on stderr")
	err := parseFlags(fs, args, func() error { return o.check() })
	return o, err
}

// check tells what is wrong with the options, if anything.
func (o soakOptions) check() error {
	if err := o.poll.check(o.burstEvery); err != nil {
		return err
	}
	if u, err := url.Parse(o.admin); err != nil || u.Scheme != "http" || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return fmt.Errorf("-admin %q: want http://HOST:PORT", o.admin)
	}
	switch {
	case o.warmup < o.poll.interval:
		return fmt.Errorf("-warmup %v: want at least the interval, %v", o.warmup, o.poll.interval)
	case o.opEvery <= 0 || o.collectEvery <= 0 || o.logEvery <= 0 || o.settle.every <= 0:
		return errors.New("-op-every, -collect-every, -log-every and -sample-every must be more than 0")
	case o.lag < 0 || o.settle.wait < 0 || o.settle.gcWait < 0:
		return errors.New("-lag, -settle and -gc-wait must not be negative")
	case o.settle.samples < 1:
		return fmt.Errorf("-samples %d: want at least 1", o.settle.samples)
	case o.growth.goroutines < 0 || o.growth.goroutinesPct < 0 || o.growth.heapPct < 0 || o.growth.heapMB < 0:
		return errors.New("the growth allowed must not be negative")
	}
	return nil
}

// runSoak is `fleetload soak`.
func runSoak(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseSoak(args, stderr)
	if err != nil {
		return err
	}
	token, err := adminToken(o.tokenFile)
	if err != nil {
		return usageError{err}
	}
	res, err := soak(ctx, o, admin.NewClient(o.admin, token), stderr)
	if err != nil {
		return err
	}
	return report(stdout, stderr, o.json, res)
}

// soak runs the load: the VMs poll for the warm-up while the driver keeps
// maintenance going, stop while serve's runtime is sampled, poll for the
// duration, and stop again for the second sample; then the checks.
// Progress goes to logw.
func soak(ctx context.Context, o soakOptions, fleet fleetAPI, logw io.Writer) (*soakResult, error) {
	var progress pollProgress
	pollers, err := newPollers(o.poll, &progress)
	if err != nil {
		return nil, err
	}
	metrics := &http.Client{Timeout: 10 * time.Second}
	metricsURL := strings.TrimSuffix(o.admin, "/") + "/metrics"
	if _, err := scrape(ctx, metrics, metricsURL); err != nil {
		return nil, err
	}
	var errs errorLog
	drv := newDriver(fleet, o.poll.layout, o.poll.seed, &errs)
	col := newCollector(fleet)
	stop := background(ctx, o, drv, col, &errs)
	r, err := soakPhases(ctx, o, pollers, &progress, metrics, metricsURL, logw, stop)
	stop() // if a phase failed
	if err != nil {
		return nil, err
	}
	if err := drv.pause(ctx); err != nil {
		errs.add(err.Error())
	}
	if err := col.collect(ctx); err != nil {
		return nil, err
	}
	return r.finish(ctx, o, pollers, drv, col, &errs)
}

// background runs the driver and the collector until the returned stop is
// called, which waits for them.
func background(ctx context.Context, o soakOptions, drv *driver, col *collector, errs *errorLog) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { drv.run(ctx, o.opEvery) })
	wg.Go(func() { col.run(ctx, o.collectEvery, errs) })
	return func() { cancel(); wg.Wait() }
}

// soakPhases runs the warm-up and the soak, and samples serve after each;
// stop stops the maintenance once the soak's polls are done.
func soakPhases(ctx context.Context, o soakOptions, pollers []*poller, progress *pollProgress,
	metrics *http.Client, metricsURL string, logw io.Writer, stop func()) (*soakResult, error) {
	fmt.Fprintf(logw, "soak: warm-up of %v\n", o.warmup)
	if err := runPollers(ctx, pollers, o.warmup, o.burstEvery, progress, logw, o.logEvery); err != nil {
		return nil, err
	}
	before, err := settle(ctx, o.settle, metrics, metricsURL)
	if err != nil {
		return nil, fmt.Errorf("sample serve after the warm-up: %w", err)
	}
	fmt.Fprintf(logw, "soak: serve after the warm-up: %s\nsoak: %v of load\n", before, o.poll.duration)
	if err := runPollers(ctx, pollers, o.poll.duration, o.burstEvery, progress, logw, o.logEvery); err != nil {
		return nil, err
	}
	stop()
	after, err := settle(ctx, o.settle, metrics, metricsURL)
	if err != nil {
		return nil, fmt.Errorf("sample serve after the soak: %w", err)
	}
	return &soakResult{Mode: "soak", WarmupS: o.warmup.Seconds(), DurationS: o.poll.duration.Seconds(),
		Growth: o.growth.check(before, after)}, nil
}

// finish checks what the pollers saw against what the server reports.
func (r *soakResult) finish(ctx context.Context, o soakOptions, pollers []*poller, drv *driver,
	col *collector, errs *errorLog) (*soakResult, error) {
	r.Poll = mergePollers(o.poll, pollers, o.warmup+o.poll.duration)
	r.Maintenance = drv.did
	r.Events = checkEvents(pollers, o.poll.layout, col.events, o.lag)
	r.Approvals = checkApprovals(pollers, col.events)
	counts := col.byCampaign()
	for _, id := range drv.did.Campaigns {
		c, err := drv.fleet.Campaign(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("campaign %s: %w", id, err)
		}
		r.Campaigns = append(r.Campaigns, checkCampaign(c, o.poll.layout, counts[id]))
	}
	r.AdminErrors, r.AdminErrorSamples = errs.count, errs.samples
	r.Pass = !r.failed()
	return r, nil
}

// fleetAPI is what the soak asks of the admin API: admin.Client, or a fake
// in tests.
type fleetAPI interface {
	StartCampaign(ctx context.Context, spec forewarn.CampaignSpec) (*forewarn.Campaign, error)
	Campaign(ctx context.Context, id string) (*forewarn.Campaign, error)
	SteerCampaign(ctx context.Context, id string, action forewarn.CampaignAction) (*forewarn.Campaign, error)
	Operate(ctx context.Context, vm string, op forewarn.Operation) (*forewarn.Event, error)
	Cancel(ctx context.Context, id string) (*forewarn.Event, error)
	Events(ctx context.Context, q forewarn.EventQuery) ([]*forewarn.Event, string, error)
	History(ctx context.Context, limit int) ([]*forewarn.Event, error)
}

// errorLog counts errors of the admin API and keeps the first few.
type errorLog struct {
	mu      sync.Mutex
	count   int
	samples []string
}

func (l *errorLog) add(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count++
	if len(l.samples) < maxSamples {
		l.samples = append(l.samples, msg)
	}
}
