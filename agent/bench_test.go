package agent

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// BenchmarkEventToHook measures the time from an event being created on
// the server to the agent's on_scheduled hook starting (the hook's first
// action creates a file), with long-poll and with 1 s polling (Azure's
// way). Each iteration restarts the VM, waits for the hook, and cancels the
// event.
//
//	go test ./agent -run '^$' -bench EventToHook -benchtime 20x
func BenchmarkEventToHook(b *testing.B) {
	for _, mode := range []struct {
		name     string
		pollOnly bool
	}{{"long-poll", false}, {"poll-1s", true}} {
		b.Run(mode.name, func(b *testing.B) {
			s := mustStartServer(b, 1)
			if _, err := s.f.EnsureDefaultVM(s.ctx, "vm0", []string{"127.0.0.1"}); err != nil {
				b.Fatal(err)
			}
			dir := b.TempDir()
			mustRunAgent(b, Config{Endpoint: s.url, VMName: "vm0", PollOnly: mode.pollOnly,
				StateFile: filepath.Join(dir, "state.json"),
				Hooks: map[EventType]Hooks{DefaultType: {OnScheduled: &Hook{
					Command: `: > "` + dir + `/$FOREWARN_EVENT_ID"`}}}})
			var total time.Duration
			for b.Loop() {
				start := time.Now()
				e, err := s.f.Operate(s.ctx, "vm0", forewarn.OpRestart)
				if err != nil {
					b.Fatal(err)
				}
				for {
					if _, err := os.Stat(filepath.Join(dir, e.ID)); err == nil {
						break
					}
					time.Sleep(time.Millisecond)
				}
				total += time.Since(start)
				if _, err := s.f.Cancel(s.ctx, e.ID); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(total.Seconds()*1000/float64(b.N), "ms/event")
		})
	}
}
