package fabric

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

// campaignRecorder is a CampaignPublisher: a recorder of scopes that also
// keeps every campaign it is handed, with its JSON at that moment, to
// check later that the fabric did not change it afterwards.
type campaignRecorder struct {
	*recorder
	mu        sync.Mutex
	campaigns []published
}

// published is one campaign handed to the publisher.
type published struct {
	c    *forewarn.Campaign
	json string
}

var _ forewarn.CampaignPublisher = (*campaignRecorder)(nil)

func (r *campaignRecorder) PublishCampaign(c *forewarn.Campaign) {
	b, err := json.Marshal(c)
	if err != nil {
		r.tb.Errorf("published campaign does not encode: %v", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.campaigns = append(r.campaigns, published{c, string(b)})
}

// take returns the campaigns published since the last take.
func (r *campaignRecorder) take() []published {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.campaigns
	r.campaigns = nil
	return out
}

// publishLog keeps every campaign ever published, for checkUnchanged.
type publishLog struct{ all []published }

func (l *publishLog) add(ps []published) []published {
	l.all = append(l.all, ps...)
	return ps
}

// checkUnchanged fails the test if the fabric changed a campaign after it
// published it.
func (l *publishLog) checkUnchanged(t *testing.T) {
	t.Helper()
	for _, p := range l.all {
		if b, _ := json.Marshal(p.c); string(b) != p.json {
			t.Errorf("campaign %s changed after it was published:\n was %s\n now %s", p.c.ID, p.json, b)
		}
	}
}

// storedCampaign returns the campaign as stored, as JSON.
func storedCampaign(h *harness, id string) string {
	h.tb.Helper()
	c, err := h.f.Campaign(h.ctx, id)
	if err != nil {
		h.tb.Fatalf("campaign %s: %v", id, err)
	}
	b, err := json.Marshal(c)
	if err != nil {
		h.tb.Fatal(err)
	}
	return string(b)
}

// expectOne fails the test unless ps is one campaign, id, in its stored
// state, and returns it.
func expectOne(h *harness, what string, ps []published, id string) *forewarn.Campaign {
	h.tb.Helper()
	if len(ps) != 1 || ps[0].c.ID != id {
		h.tb.Fatalf("%s published %d campaigns %s, want %s once", what, len(ps), campaignIDs(ps), id)
	}
	if want := storedCampaign(h, id); ps[0].json != want {
		h.tb.Errorf("%s published\n %s\nwhile the store has\n %s", what, ps[0].json, want)
	}
	return ps[0].c
}

func campaignIDs(ps []published) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.c.ID)
	}
	return fmt.Sprint(out)
}

// TestCampaignPublisher: a CampaignPublisher receives every campaign when
// it is connected, then each campaign a transaction changed, once, in its
// final state: on start, steering and advance.
func TestCampaignPublisher(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	scopes := fleet3x5(h)
	before := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: scopes[2:]})

	pub := &campaignRecorder{recorder: newRecorder(t)}
	var log publishLog
	defer log.checkUnchanged(t)
	if err := h.f.PublishTo(h.ctx, pub); err != nil {
		t.Fatal(err)
	}
	expectOne(h, "PublishTo", log.add(pub.take()), before.ID)
	if pub.snapshot("web") == nil {
		t.Errorf("PublishTo did not publish the scopes to a CampaignPublisher")
	}

	// Start stores the campaign, then advances and stores it again, in
	// one transaction: one message, with the first update domain's event.
	c := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: scopes[:1]})
	got := expectOne(h, "StartCampaign", log.add(pub.take()), c.ID)
	if got.State != forewarn.CampaignRunning || got.Scopes[0].Event == "" || got.EstimatedEnd.IsZero() {
		t.Errorf("started campaign published before its advance: %s", mustMarshal(t, got))
	}

	steer := func(a forewarn.CampaignAction, want forewarn.CampaignState) *forewarn.Campaign {
		t.Helper()
		if _, err := h.f.SteerCampaign(h.ctx, c.ID, a); err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		got := expectOne(h, string(a), log.add(pub.take()), c.ID)
		if got.State != want {
			t.Errorf("%s published state %s, want %s", a, got.State, want)
		}
		return got
	}
	steer(forewarn.PauseCampaign, forewarn.CampaignPaused)
	steer(forewarn.ResumeCampaign, forewarn.CampaignRunning) // stored, advanced, stored again

	// A change that touches no campaign publishes none.
	h.vm(forewarn.VMSpec{Name: "web-extra", Scope: "web"})
	if ps := log.add(pub.take()); len(ps) != 0 {
		t.Errorf("creating a VM published campaigns %s", campaignIDs(ps))
	}

	// The scheduler advances the campaign as its events end: each
	// advance is published, the last in the stored state.
	e := h.event(got.Scopes[0].Event)
	if _, err := h.f.Approve(h.ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	for step := 0; ; step++ {
		if step == 100 {
			t.Fatalf("the campaign did not advance; published %s", campaignIDs(pub.take()))
		}
		next, err := h.f.Tick(h.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ps := log.add(pub.take()); len(ps) > 0 {
			last := ps[len(ps)-1]
			if last.c.ID != c.ID || last.json != storedCampaign(h, c.ID) {
				t.Fatalf("advance published %s, want %s in its stored state %s", last.json, c.ID, storedCampaign(h, c.ID))
			}
			if last.c.Scopes[0].Done != 1 {
				t.Errorf("advanced campaign: done %d, want 1", last.c.Scopes[0].Done)
			}
			break
		}
		if next.IsZero() {
			next = h.clock.Now().Add(time.Second)
		}
		h.clock.Advance(next.Sub(h.clock.Now()))
	}

	got = steer(forewarn.CancelCampaign, forewarn.CampaignCancelled)
	if got.EndedAt.IsZero() {
		t.Errorf("cancelled campaign published without its end: %s", mustMarshal(t, got))
	}

	// A publisher connected later gets every campaign once, as stored.
	late := &campaignRecorder{recorder: newRecorder(t)}
	if err := h.f.PublishTo(h.ctx, late); err != nil {
		t.Fatal(err)
	}
	ps := log.add(late.take())
	if len(ps) != 2 {
		t.Fatalf("PublishTo published %s, want both campaigns once", campaignIDs(ps))
	}
	for _, p := range ps {
		if p.json != storedCampaign(h, p.c.ID) {
			t.Errorf("PublishTo published %s, the store has %s", p.json, storedCampaign(h, p.c.ID))
		}
	}
}

// TestCampaignsWithoutCampaignPublisher: campaigns start, advance and
// are steered with a Publisher that takes no campaigns (the metadata
// endpoint alone), or none at all, and their events still reach the
// publisher as scopes.
func TestCampaignsWithoutCampaignPublisher(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	scopes := fleet3x5(h)
	c := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: scopes[:1]})
	if snap := h.pub.snapshot("web"); snap == nil || len(snap.Events) != 1 || snap.Events[0].Campaign != c.ID {
		t.Errorf("the campaign's event did not reach the publisher: %+v", snap)
	}
	if _, err := h.f.SteerCampaign(h.ctx, c.ID, forewarn.PauseCampaign); err != nil {
		t.Fatal(err)
	}

	bare, err := New(h.ctx, Config{Store: h.store, Clock: h.clock, AlwaysEnabled: true}) // never PublishTo
	if err != nil {
		t.Fatal(err)
	}
	c2, err := bare.StartCampaign(h.ctx, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: scopes[1:2]})
	if err != nil {
		t.Fatalf("start a campaign without a publisher: %v", err)
	}
	if _, err := bare.SteerCampaign(h.ctx, c2.ID, forewarn.CancelCampaign); err != nil {
		t.Fatalf("cancel a campaign without a publisher: %v", err)
	}
	if _, err := bare.Tick(h.ctx); err != nil {
		t.Fatal(err)
	}
}

func TestLastOfEach(t *testing.T) {
	a1 := &forewarn.Campaign{ID: "a", State: forewarn.CampaignRunning}
	b1 := &forewarn.Campaign{ID: "b"}
	a2 := &forewarn.Campaign{ID: "a", State: forewarn.CampaignPaused}
	c1 := &forewarn.Campaign{ID: "c"}
	b2 := &forewarn.Campaign{ID: "b", State: forewarn.CampaignDone}
	got := lastOfEach([]*forewarn.Campaign{a1, b1, a2, c1, b2})
	if len(got) != 3 || got[0] != a2 || got[1] != b2 || got[2] != c1 {
		t.Errorf("lastOfEach = %s, want a (paused), b (done), c", mustMarshal(t, got))
	}
	if got := lastOfEach(nil); len(got) != 0 {
		t.Errorf("lastOfEach(nil) = %v", got)
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRefreshPublishesTheCampaignsNamed checks that a change that names
// the campaigns that changed (as etcd's watch does) republishes those only,
// and one that does not name them every campaign.
func TestRefreshPublishesTheCampaignsNamed(t *testing.T) {
	h := mustOpenHarness(t, Config{AlwaysEnabled: true})
	scopes := fleet3x5(h)
	a := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: scopes[:1]})
	b := startCampaign(h, forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: scopes[1:2]})
	pub := &campaignRecorder{recorder: newRecorder(t)}
	if err := h.f.PublishTo(h.ctx, pub); err != nil {
		t.Fatal(err)
	}
	pub.take()
	refresh := func(c forewarn.Change) []published {
		t.Helper()
		if err := h.f.refresh(h.ctx, c); err != nil {
			t.Fatal(err)
		}
		return pub.take()
	}
	expectOne(h, "a change of B", refresh(forewarn.Change{Campaigns: true, CampaignIDs: []string{strings.ToLower(b.ID)}}), b.ID)
	if got := refresh(forewarn.Change{Campaigns: true, CampaignIDs: []string{"gone"}}); len(got) != 0 {
		t.Errorf("a change of a campaign that is gone published %s", campaignIDs(got))
	}
	want := []string{a.ID, b.ID}
	slices.Sort(want) // created at the same time: by ID
	if got := refresh(forewarn.Change{Campaigns: true}); campaignIDs(got) != fmt.Sprint(want) {
		t.Errorf("a change of unnamed campaigns published %s, want both", campaignIDs(got))
	}
}
