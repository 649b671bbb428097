package drill

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/plural"
)

// A failed health check's report keeps the last lines of its output, up
// to maxOutput bytes.
const (
	maxOutputLines = 3
	maxOutput      = 300
)

// checkHealth runs the step's health check for each VM of a completed
// event, each in its own goroutine, until it succeeds or its time is up.
func (s *stepRun) checkHealth(ev *forewarn.Event, t *tracked) {
	h := s.step.Expect.Health
	for _, vm := range ev.Resources {
		s.health.Go(func() {
			res := s.r.health(s.ctx, h, ev, vm)
			s.mu.Lock()
			t.health[forewarn.KeyOf(vm)] = res
			s.mu.Unlock()
			now := s.at(ev.EndedAt.Add(time.Duration(res.After)))
			if res.Passed {
				s.out.linef("  %s %s healthy %s after event %s", now, vm, roundDuration(time.Duration(res.After)), shortID(ev.ID))
			} else {
				s.out.linef("  %s %s NOT healthy within %s after event %s (%s)", now, vm,
					forewarn.FormatDuration(h.Within), shortID(ev.ID), plural.Count(res.Attempts, "attempt", "attempts"))
			}
		})
	}
}

// health runs a health check for one VM after an event, every
// DefaultHealthBetween, until it exits 0 or h.Within has passed since the
// event ended. The command sees the VM and the event in FOREWARN_*
// variables.
func (r *Runner) health(ctx context.Context, h *Health, ev *forewarn.Event, vm string) *HealthResult {
	ctx, cancel := context.WithTimeout(ctx, h.Within)
	defer cancel()
	start := time.Now()
	res := &HealthResult{}
	for {
		res.Attempts++
		out, err := r.runHealth(ctx, h.Command, ev, vm)
		res.After = forewarn.Duration(time.Since(start))
		if err == nil {
			res.Passed, res.Output = true, ""
			return res
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("still running when its %s were up", forewarn.FormatDuration(h.Within))
		}
		res.Output = lastLines(string(out)+"\n"+err.Error(), maxOutputLines, maxOutput)
		if sleep(ctx, DefaultHealthBetween) != nil {
			return res
		}
	}
}

// runHealth runs the command once, with the shell.
func (r *Runner) runHealth(ctx context.Context, command string, ev *forewarn.Event, vm string) ([]byte, error) {
	shell := r.Shell
	if shell == "" {
		shell = "/bin/sh"
	}
	cmd := exec.CommandContext(ctx, shell, "-c", command)
	cmd.Env = append(os.Environ(),
		"FOREWARN_VM="+vm,
		"FOREWARN_SCOPE="+ev.Scope,
		"FOREWARN_EVENT_ID="+ev.ID,
		"FOREWARN_EVENT_TYPE="+string(ev.Type),
	)
	cmd.WaitDelay = time.Second
	return cmd.CombinedOutput()
}

// lastLines keeps the last non-empty lines of s, at most n of them and
// max bytes, joined on one line.
func lastLines(s string, n, max int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	lines = lines[len(lines)-min(n, len(lines)):]
	out := strings.Join(lines, " / ")
	if len(out) > max {
		out = "..." + out[len(out)-max:]
	}
	return out
}
