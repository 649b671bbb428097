package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/client"
)

// TestEventsWatch checks that events watch prints the document at once,
// a line when an event is created, and ends cleanly when interrupted.
func TestEventsWatch(t *testing.T) {
	for _, format := range []string{"table", "json"} {
		t.Run(format, func(t *testing.T) {
			srv := startServer(t)
			srv.setEnv(t)

			out := &lineWriter{}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan struct{})
			var watchErr error
			go func() {
				defer close(done)
				watchErr = newCLI([]string{"events", "watch", "-o", format}, out).ExecuteContext(ctx)
			}()

			if format == "table" {
				next := out.await(t, 0, done, "incarnation ", ": no events")
				ev := mustJSON[*forewarn.Event](t, "vm", "restart", srv.hostVM, "-o", "json")
				out.await(t, next, done, ev.ID, "Reboot Scheduled "+srv.hostVM, "not-before", "(User)")
			} else {
				next := awaitDocument(t, out, 0, done, 0)
				mustRun(t, "vm", "restart", srv.hostVM)
				awaitDocument(t, out, next, done, 1)
			}

			cancel()
			<-done
			if watchErr != nil {
				t.Errorf("events watch ended with %v, want nil", watchErr)
			}
		})
	}
}

// awaitDocument waits for the next line, which must be a document with n
// events, and returns the index after it.
func awaitDocument(t *testing.T, out *lineWriter, from int, done <-chan struct{}, n int) int {
	t.Helper()
	line, next, ok := out.next(from, done)
	if !ok {
		t.Fatalf("no document; output:\n%s", out)
	}
	var doc client.Document
	if err := json.Unmarshal([]byte(line), &doc); err != nil || len(doc.Events) != n {
		t.Fatalf("line %q: want a document with %d events (err %v)", line, n, err)
	}
	return next
}
