package storetest

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/forewarn/forewarn"
)

var campaignTests = []testCase{
	{"Campaign/PutGet", testCampaignPutGet},
	{"Campaign/Order", testCampaignOrder},
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
}
