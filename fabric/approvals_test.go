package fabric

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// updateCounter counts the store's write transactions, and fails them
// with fail once it is set.
type updateCounter struct {
	forewarn.Store
	updates atomic.Int64
	fail    atomic.Pointer[error]
}

func (s *updateCounter) Update(ctx context.Context, fn func(forewarn.Tx) error) error {
	s.updates.Add(1)
	if err := s.fail.Load(); err != nil {
		return *err
	}
	return s.Store.Update(ctx, fn)
}

// queuedApprovals sets up a scope of n VMs, each with a restart Scheduled,
// counts the store's writes from then on, and holds the fabric's lock, so
// that the approvals sent then queue: the first takes itself as a batch
// and waits for the lock, the others wait behind it. release lets them go.
// With maxWrites, a transaction that writes more events is too large.
func queuedApprovals(t *testing.T, n, maxWrites int) (h *harness, events []*forewarn.Event, store *updateCounter, approve func(vm string, ids ...string) <-chan error, release func()) {
	h = mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.scope(forewarn.ScopeSpec{Name: "web", Kind: forewarn.AvailabilitySet})
	for i := range n {
		name := fmt.Sprintf("web-%d", i)
		h.vm(forewarn.VMSpec{Name: name, Scope: "web"})
		events = append(events, h.operate(name, forewarn.OpRestart))
	}
	store = &updateCounter{Store: h.store}
	h.f.store = store
	if maxWrites > 0 {
		h.f.store = &boundedStore{Store: store, maxWrites: maxWrites}
	}
	h.f.mu.Lock()
	queued := 0
	approve = func(vm string, ids ...string) <-chan error {
		errc := make(chan error, 1)
		go func() { errc <- h.f.Metadata().Approve(context.Background(), vm, ids) }()
		queued++
		waitFor(t, func() bool {
			h.f.approvals.mu.Lock()
			defer h.f.approvals.mu.Unlock()
			// The first is taken at once, by itself.
			return h.f.approvals.committing && len(h.f.approvals.pending) == queued-1
		})
		return errc
	}
	return h, events, store, approve, h.f.mu.Unlock
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}

// TestApprovalsCommitTogether: approvals that come while one commits are
// committed together, in one transaction, each with its own answer: a
// refused one changes nothing and does not hold the others back.
func TestApprovalsCommitTogether(t *testing.T) {
	h, events, store, approve, release := queuedApprovals(t, 5, 0)
	var answers []<-chan error
	for i, e := range events {
		answers = append(answers, approve(fmt.Sprintf("web-%d", i), e.ID))
	}
	refused := approve("web-0", "no-such-event")
	missing := approve("web-9", events[0].ID)
	release()
	for i, errc := range answers {
		if err := <-errc; err != nil {
			t.Errorf("approval %d: %v", i, err)
		}
	}
	if err := <-refused; !errors.Is(err, forewarn.ErrInvalid) {
		t.Errorf("approval of an unknown event: %v, want ErrInvalid", err)
	}
	if err := <-missing; !errors.Is(err, forewarn.ErrNotFound) {
		t.Errorf("approval by an unknown VM: %v, want ErrNotFound", err)
	}
	if n := store.updates.Load(); n != 2 {
		t.Errorf("%d store writes, want 2: the first approval, then the six that queued behind it", n)
	}
	for _, e := range events {
		if got := h.event(e.ID); got.Status != forewarn.Started || got.ApprovedBy != e.Resources[0] {
			t.Errorf("event %s: %s approved by %q, want Started by %s", e.ID, got.Status, got.ApprovedBy, e.Resources[0])
		}
	}
}

// TestApprovalsFailTogether: a transaction that fails fails every approval
// it carried, and none is applied.
func TestApprovalsFailTogether(t *testing.T) {
	h, events, store, approve, release := queuedApprovals(t, 3, 0)
	var answers []<-chan error
	for i, e := range events {
		answers = append(answers, approve(fmt.Sprintf("web-%d", i), e.ID))
	}
	diskFull := errors.New("disk full")
	store.fail.Store(&diskFull)
	release()
	for i, errc := range answers {
		if err := <-errc; !errors.Is(err, diskFull) {
			t.Errorf("approval %d: %v, want the store's error", i, err)
		}
	}
	store.fail.Store(nil)
	for _, e := range events {
		if got := h.event(e.ID); got.Status != forewarn.Scheduled {
			t.Errorf("event %s: %s, want Scheduled", e.ID, got.Status)
		}
	}
}

// TestApprovalGivesUp: an approval whose context ends while it waits says
// so, the first of a batch too, whose commit then goes on for the others.
func TestApprovalGivesUp(t *testing.T) {
	h, events, _, approve, release := queuedApprovals(t, 2, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := h.f.Metadata().Approve(ctx, "web-0", []string{events[0].ID}); !errors.Is(err, forewarn.ErrUnavailable) {
		t.Errorf("approval that timed out: %v, want ErrUnavailable", err)
	}
	second := approve("web-1", events[1].ID)
	release()
	if err := <-second; err != nil {
		t.Errorf("approval behind one that gave up: %v", err)
	}
	if got := h.event(events[0].ID); got.Status != forewarn.Started {
		t.Errorf("the approval that gave up: %s, want Started (it was committed after)", got.Status)
	}
}

// TestApprovalsTooLargeTogether: a batch the store finds too large is
// committed one approval at a time.
func TestApprovalsTooLargeTogether(t *testing.T) {
	h, events, store, approve, release := queuedApprovals(t, 4, 1)
	var answers []<-chan error
	for i, e := range events {
		answers = append(answers, approve(fmt.Sprintf("web-%d", i), e.ID))
	}
	release()
	for i, errc := range answers {
		if err := <-errc; err != nil {
			t.Errorf("approval %d: %v", i, err)
		}
	}
	// The first alone; the three behind it, too large together; then each.
	if n := store.updates.Load(); n != 5 {
		t.Errorf("%d store writes, want 5", n)
	}
	for _, e := range events {
		if got := h.event(e.ID); got.Status != forewarn.Started {
			t.Errorf("event %s: %s, want Started", e.ID, got.Status)
		}
	}
}
