package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/forewarn/forewarn"
)

// changeMaker makes the one change the long-polls wait for: a restart
// through forewarn's admin API (restarter), or a POST to a URL (poster),
// which is how a load changes the baseline's document.
type changeMaker interface {
	// describe says what the change will be, for the progress log.
	describe() string
	// makeChange makes it.
	makeChange(ctx context.Context) (change, error)
}

// change is a change made: what it was, when the call that made it was
// sent, and how long the call took.
type change struct {
	what      string
	vm, event string // of a restart
	sent      time.Time
	took      time.Duration
}

// changer restarts a VM: admin.Client, or a fake in tests.
type changer interface {
	Operate(ctx context.Context, vm string, op forewarn.Operation) (*forewarn.Event, error)
}

// restarter restarts a VM of the layout's first scope.
type restarter struct {
	layout layout
	fleet  changer
}

func (r restarter) describe() string {
	return "restarting a VM of " + r.layout.scopeName(0)
}

// makeChange restarts the first VM of the scope that takes it: a VM with
// an event in flight refuses a second (409), which is no change, so that a
// load can run again on the same fleet.
func (r restarter) makeChange(ctx context.Context) (change, error) {
	var err error
	for i := range r.layout.vms {
		vm := r.layout.vmName(i)
		sent := time.Now()
		var ev *forewarn.Event
		ev, err = r.fleet.Operate(ctx, vm, forewarn.OpRestart)
		if err == nil {
			return change{what: fmt.Sprintf("restart of %s (event %s)", vm, ev.ID),
				vm: vm, event: ev.ID, sent: sent, took: time.Since(sent)}, nil
		}
		if !errors.Is(err, forewarn.ErrConflict) {
			return change{}, fmt.Errorf("restart %s: %w", vm, err)
		}
	}
	return change{}, fmt.Errorf("no VM of scope %s takes a restart (start serve afresh): %w", r.layout.scopeName(0), err)
}

// poster POSTs to a URL, with no body, and wants a 2xx answer.
type poster struct{ url string }

func (p poster) describe() string { return "POST " + p.url }

// makeChange POSTs on a connection of its own, as the admin client would
// open one for a restart.
func (p poster) makeChange(ctx context.Context) (change, error) {
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{}}
	defer c.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, nil)
	if err != nil {
		return change{}, fmt.Errorf("-trigger %q: %w", p.url, err)
	}
	sent := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		return change{}, fmt.Errorf("POST %s: %w", p.url, err)
	}
	took := time.Since(sent)
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return change{}, fmt.Errorf("POST %s: %s: %s", p.url, resp.Status, strings.TrimSpace(string(body)))
	}
	return change{what: "POST " + p.url, sent: sent, took: took}, nil
}
