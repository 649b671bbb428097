package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

var campaignTests = []testCase{
	{"Campaign/PutGet", testCampaignPutGet},
	{"Campaign/Order", testCampaignOrder},
	{"Campaign/Progress", testCampaignProgress},
}

func newCampaign(id string, created time.Time) *forewarn.Campaign {
	return &forewarn.Campaign{
		ID:    id,
		Spec:  forewarn.CampaignSpec{Type: forewarn.Freeze, Scopes: []string{"web"}, Notice: forewarn.Duration(time.Hour)},
		State: forewarn.CampaignRunning,
		Scopes: []forewarn.ScopeProgress{
			{Scope: "web", UpdateDomains: 5, Done: 2, Event: "event-01"},
		},
		CreatedAt: created,
	}
}

func testCampaignPutGet(t *testing.T, s forewarn.Store) {
	c := newCampaign("campaign-1", at(0))
	update(t, s, func(tx forewarn.Tx) error { return tx.PutCampaign(c) })
	got := read(t, s, func(tx forewarn.Tx) (*forewarn.Campaign, error) { return tx.Campaign("CAMPAIGN-1") })
	if !reflect.DeepEqual(got, c) {
		t.Fatalf("got %+v, want %+v", got, c)
	}
	err := s.View(t.Context(), func(tx forewarn.Tx) error {
		_, err := tx.Campaign("nope")
		return err
	})
	if !errors.Is(err, forewarn.ErrNotFound) {
		t.Fatalf("missing campaign: %v", err)
	}
	if err := s.Update(t.Context(), func(tx forewarn.Tx) error { return tx.PutCampaign(nil) }); !errors.Is(err, forewarn.ErrInvalid) {
		t.Fatalf("nil campaign: %v", err)
	}
}

func testCampaignOrder(t *testing.T, s forewarn.Store) {
	update(t, s, func(tx forewarn.Tx) error {
		for _, c := range []*forewarn.Campaign{newCampaign("b", at(2)), newCampaign("a", at(3)), newCampaign("c", at(1))} {
			if err := tx.PutCampaign(c); err != nil {
				return err
			}
		}
		return nil
	})
	all := read(t, s, func(tx forewarn.Tx) ([]*forewarn.Campaign, error) { return tx.Campaigns() })
	if got := names(all, func(c *forewarn.Campaign) string { return c.ID }); !reflect.DeepEqual(got, []string{"c", "b", "a"}) {
		t.Fatalf("order %v", got)
	}
	headers := read(t, s, func(tx forewarn.Tx) ([]*forewarn.Campaign, error) { return tx.CampaignHeaders() })
	for i, h := range headers {
		want := *all[i]
		want.Scopes = nil
		if !reflect.DeepEqual(h, &want) {
			t.Errorf("header %d = %+v, want %+v", i, h, &want)
		}
	}
	if len(headers) != len(all) {
		t.Errorf("%d headers, want %d", len(headers), len(all))
	}
}

// testCampaignProgress writes a campaign's progress as it moves, grows and
// shrinks, in one transaction and across several, and reads back what was
// written last, also within the transaction that wrote it.
func testCampaignProgress(t *testing.T, s forewarn.Store) {
	c := newCampaign("p", at(0))
	for i := range 12 {
		c.Scopes = append(c.Scopes, forewarn.ScopeProgress{Scope: fmt.Sprintf("s%02d", i), UpdateDomains: 3})
	}
	update(t, s, func(tx forewarn.Tx) error { return tx.PutCampaign(c) })
	steps := []func(c *forewarn.Campaign){
		func(c *forewarn.Campaign) { c.Scopes[3].Done, c.Scopes[3].Event = 1, "e3" },
		func(c *forewarn.Campaign) { c.Scopes[0].Done, c.Scopes[0].Waiting = 1, "vm v" },
		func(c *forewarn.Campaign) {
			c.Scopes[12].Skipped = []forewarn.SkippedDomain{{UpdateDomain: 0, Reason: "no VMs"}}
		},
		func(c *forewarn.Campaign) { c.Scopes[3].Done, c.Scopes[3].Event = 0, "" }, // back at its start
		func(c *forewarn.Campaign) { c.Scopes = c.Scopes[:5] },
		func(c *forewarn.Campaign) { c.State = forewarn.CampaignPaused },
		func(c *forewarn.Campaign) {
			c.Scopes = append(c.Scopes, forewarn.ScopeProgress{Scope: "late", UpdateDomains: 1, Done: 1})
		},
	}
	for i, step := range steps {
		step(c)
		update(t, s, func(tx forewarn.Tx) error {
			if err := tx.PutCampaign(c); err != nil {
				return err
			}
			got, err := tx.Campaign("P")
			if err == nil && !reflect.DeepEqual(got, c) {
				t.Errorf("step %d, within the transaction: got %+v, want %+v", i, got, c)
			}
			return err
		})
		got := read(t, s, func(tx forewarn.Tx) (*forewarn.Campaign, error) { return tx.Campaign("p") })
		if !reflect.DeepEqual(got, c) {
			t.Fatalf("step %d: got %+v, want %+v", i, got, c)
		}
	}
	// The same steps on another campaign, each read, changed and written
	// in one transaction (as the scheduler does), then twice more: one
	// write moves a scope, the next moves it back.
	c = newCampaign("q", at(0))
	for i := range 12 {
		c.Scopes = append(c.Scopes, forewarn.ScopeProgress{Scope: fmt.Sprintf("s%02d", i), UpdateDomains: 3})
	}
	update(t, s, func(tx forewarn.Tx) error { return tx.PutCampaign(c) })
	for i, step := range steps {
		var want *forewarn.Campaign
		update(t, s, func(tx forewarn.Tx) error {
			got, err := tx.Campaign("q")
			if err != nil {
				return err
			}
			step(got)
			want = got
			if err := tx.PutCampaign(got); err != nil {
				return err
			}
			before, err := tx.Campaign("q")
			if err != nil {
				return err
			}
			before.Scopes[1].Done = 2
			if err := tx.PutCampaign(before); err != nil {
				return err
			}
			before.Scopes[1].Done = want.Scopes[1].Done
			return tx.PutCampaign(before)
		})
		got := read(t, s, func(tx forewarn.Tx) (*forewarn.Campaign, error) { return tx.Campaign("Q") })
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("read-modify-write step %d: got %+v, want %+v", i, got, want)
		}
	}
}
