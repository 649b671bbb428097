package fabric

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/forewarn/forewarn"
)

// manyScopes creates n availability sets of 2 update domains with a VM in
// each, in one batch, and returns their names.
func manyScopes(h *harness, n int) []string {
	h.tb.Helper()
	var scopes []string
	var specs []forewarn.ScopeSpec
	var vms []forewarn.VMSpec
	for i := range n {
		name := fmt.Sprintf("s%04d", i)
		scopes = append(scopes, name)
		specs = append(specs, forewarn.ScopeSpec{Name: name, UpdateDomains: 2})
		for ud := range 2 {
			vms = append(vms, forewarn.VMSpec{Name: fmt.Sprintf("%s-%d", name, ud), Scope: name, UpdateDomain: &ud})
		}
	}
	if err := h.f.CreateBatch(h.ctx, specs, vms); err != nil {
		h.tb.Fatal(err)
	}
	return scopes
}

// TestCampaignSchedulesInBatches starts a campaign over more scopes than
// one advance schedules: the first maxAdvanceBatch scopes get their event at
// once, each Tick schedules the next batch, and the rollout then ends with
// every VM hit once, in update domain order.
func TestCampaignSchedulesInBatches(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	n := 2100 // more than two batches of maxAdvanceBatch (1000)
	scopes := manyScopes(h, n)
	c := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, All: true, ParallelScopes: n})
	inFlight := func() int {
		events, _, err := h.f.Events(h.ctx, forewarn.EventQuery{})
		if err != nil {
			t.Fatal(err)
		}
		return len(events)
	}
	for _, want := range []int{maxAdvanceBatch, 2 * maxAdvanceBatch, n} {
		if got := inFlight(); got != want {
			t.Fatalf("%d events in flight, want %d", got, want)
		}
		if _, err := h.f.Tick(h.ctx); err != nil {
			t.Fatal(err)
		}
	}
	r := newRollout(h, c)
	r.run(nil)
	for _, s := range scopes {
		if fmt.Sprint(r.order[s]) != "[0 1]" && fmt.Sprint(r.order[s]) != "[]" {
			t.Fatalf("update domains of %s in order %v", s, r.order[s])
		}
	}
	if got, _ := h.f.Campaign(h.ctx, c.ID); got.State != forewarn.CampaignDone {
		t.Fatalf("campaign is %s, want done", got.State)
	}
}

// TestDueBatchSkipsAFailure checks that an event whose start fails holds up
// none of the others due with it: they start, and Tick names the one that
// failed.
func TestDueBatchSkipsAFailure(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	manyScopes(h, 300)
	startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, All: true, ParallelScopes: 300})
	events, _, err := h.f.Events(h.ctx, forewarn.EventQuery{})
	if err != nil || len(events) != 300 {
		t.Fatalf("%d events, %v; want 300", len(events), err)
	}
	bad := events[123]
	f, err := New(h.ctx, Config{Store: &failingStore{h.store, bad.ID}, Clock: h.clock, AlwaysEnabled: true})
	if err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(bad.NotBefore.Sub(h.clock.Now()))
	_, err = f.Tick(h.ctx)
	if err == nil || !strings.Contains(err.Error(), bad.ID) {
		t.Fatalf("Tick = %v, want an error naming %s", err, bad.ID)
	}
	events, _, err = h.f.Events(h.ctx, forewarn.EventQuery{Status: forewarn.Started})
	if err != nil || len(events) != 299 {
		t.Fatalf("%d events started, %v; want all 299 but the failing one", len(events), err)
	}
}

// failingStore fails every transaction that writes the event failID.
type failingStore struct {
	forewarn.Store
	failID string
}

func (s *failingStore) Update(ctx context.Context, fn func(forewarn.Tx) error) error {
	return s.Store.Update(ctx, func(tx forewarn.Tx) error { return fn(failingTx{tx, s.failID}) })
}

type failingTx struct {
	forewarn.Tx
	failID string
}

func (t failingTx) PutEvent(e *forewarn.Event) error {
	if e.ID == t.failID {
		return fmt.Errorf("cannot write event %s", e.ID)
	}
	return t.Tx.PutEvent(e)
}

// TestCampaignsAdvanceOnlyWhenDue checks that the scheduler reads the
// campaigns only when one may move on: not after a change that ends no
// event, but after one that does.
func TestCampaignsAdvanceOnlyWhenDue(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	manyScopes(h, 3)
	counting := &campaignReads{Store: h.store}
	f, err := New(h.ctx, Config{Store: counting, Clock: h.clock, AlwaysEnabled: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := f.StartCampaign(h.ctx, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: []string{"s0000", "s0001"}})
	if err != nil {
		t.Fatal(err)
	}
	tick := func() {
		if _, err := f.Tick(h.ctx); err != nil {
			t.Fatal(err)
		}
	}
	tick()
	tick()
	before := counting.n.Load()
	if _, err := f.Operate(h.ctx, "s0002-0", forewarn.OpRestart); err != nil {
		t.Fatal(err)
	}
	tick()
	if n := counting.n.Load() - before; n != 0 {
		t.Errorf("a restart in a scope of no campaign made the scheduler read the campaigns %d times", n)
	}
	if _, err := f.Cancel(h.ctx, c.Scopes[0].Event); err != nil {
		t.Fatal(err)
	}
	tick()
	got, err := f.Campaign(h.ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Scopes[0].Done != 1 || got.Scopes[0].Event == "" {
		t.Errorf("after its event was cancelled, the campaign's first scope is %+v, want update domain 1 under way", got.Scopes[0])
	}
}

// campaignReads counts the transactions that list the campaigns, whole or
// their headers.
// whole counts the reads of each campaign whole, by id.
type campaignReads struct {
	forewarn.Store
	n     atomic.Int64
	mu    sync.Mutex
	whole map[forewarn.Key]int
}

func (s *campaignReads) View(ctx context.Context, fn func(forewarn.Tx) error) error {
	return s.Store.View(ctx, func(tx forewarn.Tx) error { return fn(campaignReadsTx{tx, s}) })
}

func (s *campaignReads) Update(ctx context.Context, fn func(forewarn.Tx) error) error {
	return s.Store.Update(ctx, func(tx forewarn.Tx) error { return fn(campaignReadsTx{tx, s}) })
}

type campaignReadsTx struct {
	forewarn.Tx
	s *campaignReads
}

func (t campaignReadsTx) Campaign(id string) (*forewarn.Campaign, error) {
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	if t.s.whole == nil {
		t.s.whole = map[forewarn.Key]int{}
	}
	t.s.whole[forewarn.KeyOf(id)]++
	return t.Tx.Campaign(id)
}

func (t campaignReadsTx) Campaigns() ([]*forewarn.Campaign, error) {
	t.s.n.Add(1)
	return t.Tx.Campaigns()
}

func (t campaignReadsTx) CampaignHeaders() ([]*forewarn.Campaign, error) {
	t.s.n.Add(1)
	return t.Tx.CampaignHeaders()
}

// TestDueBatchShrinksToTheStore checks that due events that make too large
// a transaction for the store (etcd's --max-txn-ops) start in smaller
// batches, not one transaction each, and that the size that fits is kept.
func TestDueBatchShrinksToTheStore(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	manyScopes(h, 300)
	startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, All: true, ParallelScopes: 300})
	events, _, err := h.f.Events(h.ctx, forewarn.EventQuery{})
	if err != nil || len(events) != 300 {
		t.Fatalf("%d events, %v; want 300", len(events), err)
	}
	bounded := &boundedStore{Store: h.store, maxWrites: 50}
	f, err := New(h.ctx, Config{Store: bounded, Clock: h.clock, AlwaysEnabled: true})
	if err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(events[0].NotBefore.Sub(h.clock.Now()))
	if _, err := f.Tick(h.ctx); err != nil {
		t.Fatal(err)
	}
	started, _, err := h.f.Events(h.ctx, forewarn.EventQuery{Status: forewarn.Started})
	if err != nil || len(started) != 300 {
		t.Fatalf("%d events started, %v; want 300", len(started), err)
	}
	// 256, 128 and 64 are refused, and 32 fit: 3 refused and 10 that commit.
	if size, n := f.dueBatch.Load(), bounded.updates.Load(); size != 32 || n > 20 {
		t.Errorf("due batch %d after %d transactions, want 32 after at most 20", size, n)
	}
}

// boundedStore refuses, as too large, a transaction that writes more than
// maxWrites events.
type boundedStore struct {
	forewarn.Store
	maxWrites int
	updates   atomic.Int64
}

func (s *boundedStore) Update(ctx context.Context, fn func(forewarn.Tx) error) error {
	s.updates.Add(1)
	return s.Store.Update(ctx, func(tx forewarn.Tx) error {
		counted := &eventWrites{Tx: tx}
		if err := fn(counted); err != nil {
			return err
		}
		if counted.writes > s.maxWrites {
			return fmt.Errorf("%d event writes: %w", counted.writes, forewarn.ErrTooLarge)
		}
		return nil
	})
}

type eventWrites struct {
	forewarn.Tx
	writes int
}

func (t *eventWrites) PutEvent(e *forewarn.Event) error {
	t.writes++
	return t.Tx.PutEvent(e)
}

// TestSettledCampaignsAreNotRead checks that once a campaign has ended with
// nothing in flight, the scheduler's advances read its header only, not its
// progress: an advance costs the campaigns under way.
func TestSettledCampaignsAreNotRead(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	manyScopes(h, 3)
	c := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: []string{"s0000", "s0001"}, ParallelScopes: 2})
	newRollout(h, c).run(nil)
	if got, _ := h.f.Campaign(h.ctx, c.ID); got.State != forewarn.CampaignDone {
		t.Fatalf("campaign is %s, want done", got.State)
	}
	counting := &campaignReads{Store: h.store}
	f, err := New(h.ctx, Config{Store: counting, Clock: h.clock, AlwaysEnabled: true})
	if err != nil {
		t.Fatal(err)
	}
	running := startCampaignOn(t, f, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: []string{"s0002"}})
	for range 20 {
		next, err := f.Tick(h.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if next.IsZero() {
			break
		}
		h.clock.Advance(next.Sub(h.clock.Now()))
	}
	if got, _ := f.Campaign(h.ctx, running.ID); got.State != forewarn.CampaignDone {
		t.Fatalf("second campaign is %s, want done", got.State)
	}
	if n := counting.whole[forewarn.KeyOf(c.ID)]; n != 1 {
		t.Errorf("the scheduler read the ended campaign whole %d times, want once (to learn it is settled)", n)
	}
}

func startCampaignOn(t *testing.T, f *Fabric, spec forewarn.CampaignSpec) *forewarn.Campaign {
	t.Helper()
	c, err := f.StartCampaign(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestAdvanceMovesABatchOfScopes runs a campaign whose events all end at
// once in more scopes than a transaction may move, and checks that no
// transaction moves more scopes of it than the batch (each a write of the
// store: etcd bounds them), counting the ends it notes as well as the
// events it schedules, and that the campaign still ends.
func TestAdvanceMovesABatchOfScopes(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	scopes := manyScopes(h, 300)
	moves := &progressMoves{Store: h.store}
	f, err := New(h.ctx, Config{Store: moves, Clock: h.clock, AlwaysEnabled: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.PublishTo(h.ctx, h.pub); err != nil {
		t.Fatal(err)
	}
	f.advanceBatch.Store(40)
	h.f = f
	c := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, All: true, ParallelScopes: 300})
	r := newRollout(h, c)
	r.run(nil)
	if got := h.campaign(c.ID); got.State != forewarn.CampaignDone {
		t.Fatalf("campaign is %s, want done", got.State)
	}
	for _, s := range scopes {
		if fmt.Sprint(r.order[s]) != "[0 1]" {
			t.Fatalf("update domains of %s in order %v", s, r.order[s])
		}
	}
	if moves.most > 40 {
		t.Errorf("a transaction moved %d scopes of the campaign, more than the batch of 40", moves.most)
	}
}

// progressMoves notes the most scopes whose progress one transaction
// changed through PutCampaign.
type progressMoves struct {
	forewarn.Store
	most int
}

func (s *progressMoves) Update(ctx context.Context, fn func(forewarn.Tx) error) error {
	return s.Store.Update(ctx, func(tx forewarn.Tx) error {
		t := &progressMovesTx{Tx: tx}
		err := fn(t)
		s.most = max(s.most, t.moved)
		return err
	})
}

type progressMovesTx struct {
	forewarn.Tx
	moved int
}

func (t *progressMovesTx) PutCampaign(c *forewarn.Campaign) error {
	moved := len(c.Scopes)
	if old, err := t.Tx.Campaign(c.ID); err == nil {
		moved = 0
		for i := range c.Scopes {
			if i >= len(old.Scopes) || fmt.Sprint(old.Scopes[i]) != fmt.Sprint(c.Scopes[i]) {
				moved++
			}
		}
	} else if c.State == forewarn.CampaignRunning {
		moved = 0 // a new campaign: its plan, not its moves
		for _, p := range c.Scopes {
			if p.Event != "" || p.Done > 0 {
				moved++
			}
		}
	}
	t.moved += moved
	return t.Tx.PutCampaign(c)
}

// TestTickNamesAFewFailures: when every due event fails (the store out of
// reach), Tick's error names the first few and counts the rest, rather
// than repeat the same cause once per event of the wave.
func TestTickNamesAFewFailures(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	manyScopes(h, 20)
	startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, All: true, ParallelScopes: 20})
	events, _, err := h.f.Events(h.ctx, forewarn.EventQuery{})
	if err != nil || len(events) != 20 {
		t.Fatalf("%d events, %v; want 20", len(events), err)
	}
	f, err := New(h.ctx, Config{Store: refusingStore{h.store}, Clock: h.clock, AlwaysEnabled: true})
	if err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(events[0].NotBefore.Sub(h.clock.Now()))
	_, err = f.Tick(h.ctx)
	named := 0
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			if strings.HasPrefix(line, "event ") {
				named++
			}
		}
	}
	if err == nil || named != maxDueErrors || !strings.Contains(err.Error(), "and 17 more events") {
		t.Errorf("Tick = %v, want %d failures named and 17 more counted", err, maxDueErrors)
	}
}

// refusingStore refuses every write.
type refusingStore struct{ forewarn.Store }

func (refusingStore) Update(context.Context, func(forewarn.Tx) error) error {
	return fmt.Errorf("store refuses: %w", forewarn.ErrUnavailable)
}
