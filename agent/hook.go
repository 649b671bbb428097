package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/forewarn/forewarn/client"
)

// hookNames are the hooks' names per transition.
var hookNames = map[string]string{
	Scheduled: "on_scheduled", Started: "on_started",
	Completed: "on_completed", Cancelled: "on_cancelled",
}

// hookOf returns the hook of a transition, nil if none.
func (h Hooks) hookOf(transition string) *Hook {
	switch transition {
	case Scheduled:
		return h.OnScheduled
	case Started:
		return h.OnStarted
	case Completed:
		return h.OnCompleted
	case Cancelled:
		return h.OnCancelled
	}
	return nil
}

// maxHookOutput bounds the output of a hook kept for the log.
const maxHookOutput = 4096

// runHook runs h for the event at a transition and returns its combined
// output (truncated) and error.
func runHook(ctx context.Context, h *Hook, ev client.Event, transition, vm string) (string, error) {
	timeout := time.Duration(h.Timeout)
	if timeout <= 0 {
		timeout = DefaultHookTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stdin, err := json.Marshal(ev)
	if err != nil {
		return "", fmt.Errorf("encode event: %w", err)
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", h.Command)
	cmd.Env = append(os.Environ(), hookEnv(ev, transition, vm)...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out limitedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second // children holding the pipes open
	err = cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("timed out after %v: %w", timeout, err)
	}
	return strings.TrimSpace(out.String()), err
}

// hookEnv is the event in environment variables.
func hookEnv(ev client.Event, transition, vm string) []string {
	notBefore := ""
	if !ev.NotBefore.IsZero() {
		notBefore = ev.NotBefore.UTC().Format(time.RFC3339)
	}
	return []string{
		"FOREWARN_EVENT_ID=" + ev.EventId,
		"FOREWARN_EVENT_TYPE=" + ev.EventType,
		"FOREWARN_EVENT_STATUS=" + transition,
		"FOREWARN_EVENT_NOT_BEFORE=" + notBefore,
		"FOREWARN_EVENT_RESOURCES=" + strings.Join(ev.Resources, ","),
		"FOREWARN_EVENT_SOURCE=" + ev.EventSource,
		"FOREWARN_EVENT_DESCRIPTION=" + ev.Description,
		"FOREWARN_EVENT_DURATION=" + strconv.Itoa(ev.DurationInSeconds),
		"FOREWARN_VM=" + vm,
		"FOREWARN_HOOK=" + hookNames[transition],
	}
}

// limitedBuffer keeps the first maxHookOutput bytes written to it.
type limitedBuffer struct{ bytes.Buffer }

// Write keeps what fits and reports everything written.
func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := maxHookOutput - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
