package agent

import (
	"bytes"
	"cmp"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/forewarn/forewarn/client"
)

// TestTransitionLogsNotBeforeOnlyWhenThereIsOne: a Started event has no
// NotBefore, and its line says nothing of one (it used to say
// not_before=0001-01-01...).
func TestTransitionLogsNotBeforeOnlyWhenThereIsOne(t *testing.T) {
	var logs bytes.Buffer
	a, err := New(Config{StateFile: filepath.Join(t.TempDir(), "state.json")}, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	nb := time.Date(2026, 11, 26, 0, 22, 55, 0, time.UTC)
	for _, tc := range []struct {
		status, transition string
		notBefore          time.Time
		want               string
	}{
		{client.EventStatusScheduled, Scheduled, nb, "not_before=2026-11-26T00:22:55.000Z"},
		{client.EventStatusStarted, Started, time.Time{}, ""},
	} {
		logs.Reset()
		ev := client.Event{EventId: "e-" + tc.status, EventType: "Reboot", EventStatus: tc.status, NotBefore: tc.notBefore}
		w := newWorker(a, ev.EventId, eventState{Event: ev, Hooks: map[string]string{}})
		if !w.transition(t.Context(), tc.transition) {
			t.Fatal("transition not done")
		}
		line := logs.String()
		saysNotBefore := strings.Contains(line, "not_before=")
		if !strings.Contains(line, "status="+tc.transition) || saysNotBefore != (tc.want != "") || !strings.Contains(line, tc.want) {
			t.Errorf("%s: logged %q, want %q in it", tc.status, line, cmp.Or(tc.want, "no not_before"))
		}
	}
}
