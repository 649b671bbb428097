package imds

import (
	"context"
	"strings"
	"testing"
)

// The first call, held while its scope enables Scheduled Events, answers
// with the document as it is when the hold ends, not as it was before.
func TestFirstCallAnswersCurrentDocument(t *testing.T) {
	e := mustStartEnv(t)
	e.meta.mu.Lock()
	e.meta.hold = func(context.Context) { e.publish(webSnapshot(5)) }
	e.meta.mu.Unlock()
	a := e.get(t, addrWeb0, eventsURL("2020-07-01"))
	if a.status != 200 || !strings.Contains(a.body, `"DocumentIncarnation":5`) {
		t.Fatalf("first call answered %d %s; want incarnation 5", a.status, a.body)
	}
}

// Shutdown ends the first-call hold, and the call is answered.
func TestShutdownAnswersHeldFirstCall(t *testing.T) {
	e := mustStartEnv(t)
	held := make(chan struct{})
	e.meta.mu.Lock()
	e.meta.hold = func(ctx context.Context) { close(held); <-ctx.Done() }
	e.meta.mu.Unlock()
	got := async(func() answer { return e.get(t, addrWeb0, eventsURL("2020-07-01")) })
	<-held
	e.srv.Shutdown()
	if a := receive(t, got); a.status != 200 || !strings.Contains(a.body, `"DocumentIncarnation":4`) {
		t.Fatalf("held first call at shutdown: %d %s", a.status, a.body)
	}
}
