package fabric

import (
	"errors"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

func TestStandaloneScopeTakesNoOtherVM(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.vm(forewarn.VMSpec{Name: "solo"})
	if _, err := h.f.CreateVM(h.ctx, forewarn.VMSpec{Name: "other", Scope: "solo"}); !errors.Is(err, forewarn.ErrInvalid) {
		t.Fatalf("vm in a standalone scope: %v", err)
	}
	// A name taken by a VM is reported as the VM's, not its scope's.
	_, err := h.f.CreateVM(h.ctx, forewarn.VMSpec{Name: "SOLO"})
	if !errors.Is(err, forewarn.ErrConflict) || err.Error() != `vm "SOLO" already exists` {
		t.Fatalf("duplicate standalone vm: %v", err)
	}
}

func TestRecreatedScopeKeepsGrowing(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.vm(forewarn.VMSpec{Name: "solo"})
	e := h.operate("solo", forewarn.OpRestart)
	h.f.Cancel(h.ctx, e.ID)
	last := h.incarnation("solo")
	if err := h.f.DeleteVM(h.ctx, "solo"); err != nil {
		t.Fatal(err)
	}
	h.vm(forewarn.VMSpec{Name: "solo"})
	if got := h.incarnation("solo"); got <= last {
		t.Fatalf("re-created scope's incarnation %d, was %d", got, last)
	}
}

func TestDeletingVMOfStartedEventCompletesIt(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.vm(forewarn.VMSpec{Name: "a"})
	e := h.operate("a", forewarn.OpRestart)
	if _, err := h.f.Approve(h.ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	if err := h.f.DeleteVM(h.ctx, "a"); err != nil {
		t.Fatal(err)
	}
	hist, _ := h.f.History(h.ctx, 1)
	if len(hist) != 1 || hist[0].Outcome != forewarn.Completed || len(hist[0].Resources) != 1 {
		t.Fatalf("history: %+v", hist[0])
	}
}

// An event that cannot be processed does not hold up the others.
func TestTickIsolatesFailures(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	h.vm(forewarn.VMSpec{Name: "a"})
	h.vm(forewarn.VMSpec{Name: "b"})
	broken := h.operate("a", forewarn.OpRestart)
	ok := h.operate("b", forewarn.OpRestart)
	// Break a's event behind the fabric's back: its scope is gone.
	err := h.store.Update(h.ctx, func(tx forewarn.Tx) error { return tx.DeleteScope("a") })
	if err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(16 * time.Minute)
	if _, err := h.f.Tick(h.ctx); err == nil {
		t.Fatal("Tick reported no failure")
	}
	if h.event(ok.ID).Status != forewarn.Started || h.event(broken.ID).Status != forewarn.Scheduled {
		t.Fatal("a broken event held up another one")
	}
}
