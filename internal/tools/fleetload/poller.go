package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"
)

// poller is one VM polling its document, as an agent does against Azure:
// a keep-alive connection from the VM's address, a GET with If-None-Match
// once an interval, and an approval of the events it leads now and then.
type poller struct {
	o        pollOptions
	name     string
	addr     netip.Addr
	url      string
	client   *http.Client
	rng      *rand.Rand
	burst    bool
	progress *pollProgress

	start    time.Time       // of the load
	burstEnd time.Time       // when the last burst ended
	etag     string          // of the last document, quotes included
	decided  map[string]bool // events it chose to approve or not
	stats    pollStats
	rec      record
}

// newPoller returns the poller of the VM name at addr.
func newPoller(o pollOptions, name string, addr netip.Addr, rng *rand.Rand, burst bool, progress *pollProgress) *poller {
	tr := &http.Transport{DialContext: dialFrom(addr).DialContext, MaxIdleConnsPerHost: 1, DisableCompression: true}
	return &poller{o: o, name: name, addr: addr, url: o.endpoint + eventsPath(o.apiVersion),
		client: &http.Client{Transport: tr, Timeout: o.timeout}, rng: rng, burst: burst,
		progress: progress, decided: make(map[string]bool), stats: newPollStats(), rec: newRecord()}
}

// run polls from a random moment of the first interval after start until
// d after start, and fires its burst, if it has one, once every
// burstEvery: after the poll of a random interval of each burstEvery but
// the first. A poll due less than half an interval after a burst ended
// is skipped: a burst slower than half an interval (a loaded machine)
// ends on an empty bucket of the rate limiter, which would refuse the
// poll. The time of the slowest GETs counts from the first start.
func (p *poller) run(ctx context.Context, start time.Time, d, burstEvery time.Duration) {
	defer p.client.CloseIdleConnections()
	if p.start.IsZero() {
		p.start = start
	}
	offset := time.Duration(p.rng.Int64N(int64(p.o.interval)))
	n := int(burstEvery / p.o.interval)
	burstAt := -1
	end := start.Add(d)
	for tick := 0; ; tick++ {
		if p.burst && tick%n == 0 {
			burstAt = tick + 1 + p.rng.IntN(n-1)
		}
		at := start.Add(offset + time.Duration(tick)*p.o.interval)
		if !at.Before(end) || !sleepUntil(ctx, at) {
			return
		}
		if at.Sub(p.burstEnd) < p.o.interval/2 {
			p.stats.skipped++
			if tick == burstAt {
				burstAt++
			}
			continue
		}
		p.poll(ctx)
		if tick == burstAt {
			p.fireBurst(ctx)
		}
	}
}

// sleepUntil waits until t; false if ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// poll GETs the document once, and reads a new one.
func (p *poller) poll(ctx context.Context) {
	sent := time.Now()
	status, etag, body, took, err := p.do(ctx, http.MethodGet, nil, p.etag)
	answered := time.Now()
	if err != nil {
		p.failTransport("GET", err)
		return
	}
	first := len(p.stats.get) == 0
	p.stats.get = append(p.stats.get, took)
	if !first {
		p.stats.later = append(p.stats.later, took)
	}
	p.stats.noteSlow(slowRequest{VM: p.name, Status: status, First: first,
		Ms: ms(took), AtS: time.Since(p.start).Seconds()})
	p.stats.count("GET", status)
	switch status {
	case http.StatusOK:
		if p.read(ctx, etag, body) {
			p.rec.addPoll(sent, answered)
		}
	case http.StatusNotModified:
		p.rec.addPoll(sent, answered)
	default:
		p.failAnswer("GET", answerText(status, body))
	}
}

// fireBurst sends o.burstSize GETs back to back: more than the rate
// limiter lets through, so that some are answered 429, as intended.
func (p *poller) fireBurst(ctx context.Context) {
	defer func() { p.burstEnd = time.Now() }()
	p.stats.bursts++
	for range p.o.burstSize {
		p.stats.burstGets++
		status, _, body, _, err := p.do(ctx, http.MethodGet, nil, p.etag)
		if err != nil {
			p.failTransport("burst GET", err)
			return
		}
		p.stats.count("burst GET", status)
		switch status {
		case http.StatusOK, http.StatusNotModified:
		case http.StatusTooManyRequests:
			p.stats.intended429++
		default:
			p.failAnswer("burst GET", answerText(status, body))
		}
	}
}

// document is what a poller reads of the document.
type document struct {
	DocumentIncarnation int
	Events              []event
}

// event is what a poller reads of an event.
type event struct {
	EventId     string
	EventStatus string
	Resources   []string
}

// read takes in a new document: it counts the change and its events, keeps
// them in the record, and approves the Scheduled events whose Resources
// name this VM first, each with probability o.approve, deciding once per
// event. It reports whether the document was JSON.
func (p *poller) read(ctx context.Context, etag string, body []byte) bool {
	var doc document
	if err := json.Unmarshal(body, &doc); err != nil {
		p.failAnswer("GET", fmt.Sprintf("a document that is not JSON (%v): %.200s", err, body))
		return false
	}
	if p.etag != "" {
		p.stats.changes++
	}
	p.etag = etag
	p.rec.addDoc(doc.Events)
	for _, ev := range doc.Events {
		p.stats.events[ev.EventId] = true
		if ev.EventStatus != "Scheduled" || len(ev.Resources) == 0 ||
			!strings.EqualFold(ev.Resources[0], p.name) || p.decided[ev.EventId] {
			continue
		}
		p.decided[ev.EventId] = true
		if p.rng.Float64() < p.o.approve {
			p.approveEvent(ctx, ev.EventId)
		}
	}
	return true
}

// approveEvent POSTs a StartRequest for the event id.
func (p *poller) approveEvent(ctx context.Context, id string) {
	body := fmt.Appendf(nil, `{"StartRequests":[{"EventId":%q}]}`, id)
	status, _, answer, took, err := p.do(ctx, http.MethodPost, body, "")
	if err != nil {
		p.failTransport("POST", err)
		return
	}
	p.stats.post = append(p.stats.post, took)
	p.stats.count("POST", status)
	switch {
	case status == http.StatusOK:
		p.stats.approvals++
		p.rec.approved = append(p.rec.approved, approval{id: id, answered: time.Now()})
	case status == http.StatusBadRequest && p.gone(ctx, id):
		// The event ended between the GET and the POST: a 400 is right.
		p.stats.late++
	default:
		p.failAnswer("POST", answerText(status, answer))
	}
}

// gone reports whether the event id has left the document, by a GET of
// its own, which the document's ETag and the change count ignore.
func (p *poller) gone(ctx context.Context, id string) bool {
	status, _, body, _, err := p.do(ctx, http.MethodGet, nil, "")
	if err != nil {
		p.failTransport("GET after a refused approval", err)
		return false
	}
	p.stats.count("GET after a refused approval", status)
	var doc document
	if status != http.StatusOK || json.Unmarshal(body, &doc) != nil {
		return false
	}
	return !slices.ContainsFunc(doc.Events, func(e event) bool { return e.EventId == id })
}

// do sends one request and reads its answer whole; took runs from before
// the request was sent until the answer's last byte was read.
func (p *poller) do(ctx context.Context, method string, body []byte, ifNoneMatch string) (status int, etag string, answer []byte, took time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, method, p.url, bytes.NewReader(body))
	if err != nil {
		return 0, "", nil, 0, err
	}
	req.Header.Set("Metadata", "true")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if ifNoneMatch != "" {
		req.Header.Set("If-None-Match", ifNoneMatch)
	}
	p.progress.requests.Add(1)
	start := time.Now()
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, "", nil, 0, err
	}
	answer, err = io.ReadAll(resp.Body)
	took = time.Since(start)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("ETag"), answer, took, err
}

// failTransport records a request that got no answer.
func (p *poller) failTransport(what string, err error) {
	p.stats.transport++
	p.sample(what, err.Error())
}

// failAnswer records an answer that should not have come.
func (p *poller) failAnswer(what, msg string) {
	p.stats.unexpected++
	p.sample(what, msg)
}

// sample counts an error for the progress lines and keeps its message if
// it is among the first few.
func (p *poller) sample(what, msg string) {
	p.progress.errors.Add(1)
	if len(p.stats.samples) < maxSamples {
		p.stats.samples = append(p.stats.samples, fmt.Sprintf("%s (%v) %s: %s", p.name, p.addr, what, msg))
	}
}

// answerText describes an answer: its status and the start of its body.
func answerText(status int, body []byte) string {
	return fmt.Sprintf("answered %d %.200s", status, bytes.TrimSpace(body))
}
