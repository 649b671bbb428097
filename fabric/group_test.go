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

// queuedApprovals sets up a scope of n VMs, each with a restart Scheduled
// (scheduledRestarts), and holds the fabric (holdFabric).
func queuedApprovals(t *testing.T, n, maxWrites int) (h *harness, events []*forewarn.Event, store *updateCounter, approve func(vm string, ids ...string) <-chan error, release func()) {
	h, events = scheduledRestarts(t, n)
	store, queue, release := holdFabric(t, h, maxWrites)
	approve = func(vm string, ids ...string) <-chan error {
		return queue(func() error { return h.f.Metadata().Approve(context.Background(), vm, ids) })
	}
	return h, events, store, approve, release
}

// scheduledRestarts sets up a scope "web" of n VMs, web-0 on, each with a
// restart Scheduled.
func scheduledRestarts(t *testing.T, n int) (*harness, []*forewarn.Event) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.scope(forewarn.ScopeSpec{Name: "web", Kind: forewarn.AvailabilitySet})
	var events []*forewarn.Event
	for i := range n {
		name := fmt.Sprintf("web-%d", i)
		h.vm(forewarn.VMSpec{Name: name, Scope: "web"})
		events = append(events, h.operate(name, forewarn.OpRestart))
	}
	return h, events
}

// holdFabric counts the store's writes from now on and holds the fabric's
// lock, so that the changes queued then wait: the first takes itself as a
// batch and waits for the lock, the others wait behind it. queue runs a
// change in the background and returns once it waits; release lets them
// go. With maxWrites, a transaction that writes more events is too large.
func holdFabric(t *testing.T, h *harness, maxWrites int) (store *updateCounter, queue func(func() error) <-chan error, release func()) {
	store = &updateCounter{Store: h.store}
	h.f.store = store
	if maxWrites > 0 {
		h.f.store = &boundedStore{Store: store, maxWrites: maxWrites}
	}
	// The setup's own changes done: their committer has found the queue
	// empty and left, so that the first change queued now commits itself.
	waitFor(t, func() bool {
		h.f.group.mu.Lock()
		defer h.f.group.mu.Unlock()
		return !h.f.group.committing
	})
	h.f.mu.Lock()
	queued := 0
	queue = func(change func() error) <-chan error {
		errc := make(chan error, 1)
		go func() { errc <- change() }()
		queued++
		waitFor(t, func() bool {
			h.f.group.mu.Lock()
			defer h.f.group.mu.Unlock()
			// The first is taken at once, by itself.
			return h.f.group.committing && len(h.f.group.pending) == queued-1
		})
		return errc
	}
	return store, queue, h.f.mu.Unlock
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
	h, events := scheduledRestarts(t, 2)
	_, queue, release := holdFabric(t, h, 0)
	gaveUp := queue(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		return h.f.Metadata().Approve(ctx, "web-0", []string{events[0].ID})
	})
	if err := <-gaveUp; !errors.Is(err, forewarn.ErrUnavailable) {
		t.Errorf("approval that timed out: %v, want ErrUnavailable", err)
	}
	second := queue(func() error { return h.f.Metadata().Approve(context.Background(), "web-1", []string{events[1].ID}) })
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

// TestOperationsCommitTogether: users' operations, and approvals, that come
// while one commits are committed together, each refused on its own: a
// second operation on a VM (409), one beyond the scope's limit (429).
func TestOperationsCommitTogether(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true, MaxUserOps: 3})
	h.scope(forewarn.ScopeSpec{Name: "web", Kind: forewarn.AvailabilitySet})
	for i := range 4 {
		h.vm(forewarn.VMSpec{Name: fmt.Sprintf("web-%d", i), Scope: "web"})
	}
	store, queue, release := holdFabric(t, h, 0)
	var events [5]*forewarn.Event
	operate := func(i int, vm string) <-chan error {
		return queue(func() error {
			var err error
			events[i], err = h.f.Operate(context.Background(), vm, forewarn.OpRestart)
			return err
		})
	}
	answers := []<-chan error{operate(0, "web-0"), operate(1, "web-1"), operate(2, "web-1"),
		operate(3, "web-2"), operate(4, "web-3")}
	release()
	want := []error{nil, nil, forewarn.ErrConflict, nil, forewarn.ErrLimit}
	for i, errc := range answers {
		if err := <-errc; !errors.Is(err, want[i]) || (err == nil) != (want[i] == nil) {
			t.Errorf("operation %d: %v, want %v", i, err, want[i])
		}
	}
	if n := store.updates.Load(); n != 2 {
		t.Errorf("%d store writes, want 2", n)
	}
	for _, i := range []int{0, 1, 3} {
		if events[i] == nil || h.event(events[i].ID) == nil {
			t.Errorf("operation %d: no event stored", i)
		}
	}
	for _, i := range []int{2, 4} {
		if events[i] != nil {
			t.Errorf("refused operation %d returned event %v", i, events[i])
		}
	}
}
