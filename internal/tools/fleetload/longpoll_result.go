package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// longpollResult is what `fleetload longpoll` measured.
type longpollResult struct {
	Mode    string `json:"mode"`
	Clients int    `json:"clients"`
	VMs     int    `json:"vms"`
	Scope   string `json:"scope"`
	Held    string `json:"held"`
	// Change is what changed the document: a restart of VM, making Event,
	// or a POST to -trigger.
	Change string  `json:"change"`
	VM     string  `json:"changed_vm,omitempty"`
	Event  string  `json:"event,omitempty"`
	AckMs  float64 `json:"change_acknowledged_ms"`
	OldTag string  `json:"old_etag"`
	NewTag string  `json:"new_etag"`
	// Answered is the clients answered 200 with a new ETag; Errors those
	// answered otherwise or cut off; Missing those with no answer after
	// -wait.
	Answered     int      `json:"answered"`
	Errors       int      `json:"errors"`
	Missing      int      `json:"missing"`
	ErrorSamples []string `json:"error_samples,omitempty"`
	// Latency runs from just before the change was sent until each new
	// document reached its client's socket (the kernel's receive
	// timestamp), over the clients answered: what the server did.
	// ReadLatency runs until the load's goroutine had read it, which adds
	// the time 10,000 goroutines take to wake on the cores the server
	// shares. Without timestamps (Timestamps false), Latency is ReadLatency.
	Latency     latency `json:"latency_from_change"`
	ReadLatency latency `json:"read_latency_from_change"`
	Timestamps  bool    `json:"kernel_timestamps"`
	// FanOut runs from the first answer's arrival to each one's: the
	// broadcast alone, without the time the change took to commit.
	FanOut latency `json:"fan_out_from_first_answer"`
	// CPU is what the server and the load used from the change to the
	// last answer.
	CPU      cpuUse  `json:"cpu_during_change"`
	TargetMs float64 `json:"target_p99_ms"`
	Pass     bool    `json:"pass"`
}

// tally sorts the clients' answers into answered, errors and missing, and
// the answered ones' latencies from sent.
func (r *longpollResult) tally(clients []*lpClient, sent time.Time) {
	var arrived, read []time.Duration
	for _, c := range clients {
		switch msg := c.problem(r.OldTag); {
		case msg == "":
			r.Answered++
			r.NewTag = c.answer.etag
			read = append(read, c.answer.read.Sub(sent))
			if !c.answer.arrived.IsZero() {
				arrived = append(arrived, c.answer.arrived.Sub(sent))
			}
		case isTimeout(c.err):
			r.Missing++
		default:
			r.Errors++
			if len(r.ErrorSamples) < maxSamples {
				r.ErrorSamples = append(r.ErrorSamples, msg)
			}
		}
	}
	r.Latency, r.ReadLatency = summarize(arrived), summarize(read)
	// Without a receive timestamp for every answer, judge by the time
	// the answers were read.
	r.Timestamps = len(arrived) == len(read)
	if !r.Timestamps {
		r.Latency, arrived = r.ReadLatency, read
	}
	r.FanOut = summarize(sinceFirst(arrived))
}

// sinceFirst returns each of sorted, less the first.
func sinceFirst(sorted []time.Duration) []time.Duration {
	out := make([]time.Duration, len(sorted))
	for i, d := range sorted {
		out[i] = d - sorted[0]
	}
	return out
}

// problem says what is wrong with c's answer, or "" if it is the new
// document.
func (c *lpClient) problem(oldTag string) string {
	switch {
	case c.err != nil:
		return fmt.Sprintf("%v: %v", c.conn.LocalAddr(), c.err)
	case c.answer.status != http.StatusOK:
		return fmt.Sprintf("%v: answered %d %.200s", c.conn.LocalAddr(), c.answer.status, c.answer.body)
	case c.answer.etag == oldTag:
		return fmt.Sprintf("%v: answered the old document (ETag %q)", c.conn.LocalAddr(), c.answer.etag)
	}
	return ""
}

// isTimeout reports whether err is a read that hit its deadline.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// failed reports whether the load saw errors.
func (r *longpollResult) failed() bool { return r.Errors > 0 || r.Missing > 0 }

// summary writes the human summary.
func (r *longpollResult) summary(w io.Writer) {
	fmt.Fprintf(w, "longpoll: %d clients over %d VMs of scope %s\n", r.Clients, r.VMs, r.Scope)
	fmt.Fprintf(w, "held:     %s\n", r.Held)
	fmt.Fprintf(w, "change:   %s, acknowledged in %s ms; ETag %q -> %q\n",
		r.Change, num(r.AckMs), r.OldTag, r.NewTag)
	fmt.Fprintf(w, "answered: %d of %d with the new document, %d errors, %d missing\n",
		r.Answered, r.Clients, r.Errors, r.Missing)
	for _, s := range r.ErrorSamples {
		fmt.Fprintf(w, "  error: %s\n", s)
	}
	if r.Timestamps {
		fmt.Fprintf(w, "latency from the change to the answer's arrival (kernel timestamp): %s\n", r.Latency)
	}
	fmt.Fprintf(w, "latency from the change to the answer read by the load: %s\n", r.ReadLatency)
	fmt.Fprintf(w, "fan-out from the first answer's arrival: %s\n", r.FanOut)
	fmt.Fprintf(w, "CPU from the change to the last answer: %s\n", r.CPU)
	fmt.Fprintf(w, "%s: every client answered, p99 at most %s ms\n", mark(r.Pass), num(r.TargetMs))
}
