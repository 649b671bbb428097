package sim

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/forewarn/forewarn"
)

// state is what the system shows after a step, read through the fabric.
type state struct {
	scopes    []*forewarn.Scope
	vms       []*forewarn.VM
	events    []*forewarn.Event
	campaigns []*forewarn.Campaign
	chaos     []*forewarn.ChaosRule
	history   []*forewarn.Event
}

func (d *driver) read(fl forewarn.Fleet, historyLimit int, page int, campaigns, chaos bool) (*state, error) {
	ctx := d.ctx
	var s state
	var err error
	if s.scopes, err = fl.Scopes(ctx); err != nil {
		return nil, fmt.Errorf("scopes: %w", err)
	}
	if s.vms, err = allPages(func(after string) ([]*forewarn.VM, string, error) {
		return fl.VMs(ctx, forewarn.VMQuery{After: after, Limit: page})
	}); err != nil {
		return nil, fmt.Errorf("vms: %w", err)
	}
	if s.events, err = allPages(func(after string) ([]*forewarn.Event, string, error) {
		return fl.Events(ctx, forewarn.EventQuery{After: after, Limit: page})
	}); err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	if campaigns {
		if s.campaigns, err = fl.Campaigns(ctx); err != nil {
			return nil, fmt.Errorf("campaigns: %w", err)
		}
	}
	if chaos {
		if s.chaos, err = fl.Chaos(ctx); err != nil {
			return nil, fmt.Errorf("chaos: %w", err)
		}
	}
	if s.history, err = fl.History(ctx, historyLimit); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	return &s, nil
}

// allPages reads a listing page by page, from the first to the last:
// list returns the page that begins after a cursor, and the next cursor.
func allPages[T any](list func(after string) ([]T, string, error)) ([]T, error) {
	var all []T
	for after := ""; ; {
		items, next, err := list(after)
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		if after = next; next == "" {
			return all, nil
		}
	}
}

// checkAll compares the system with the model and checks the invariants;
// full also compares the whole history, and the admin API's listings,
// page by page, with the fabric's.
func (d *driver) checkAll(full bool) error {
	limit := d.m.ended + 1
	if full {
		limit = 10000 // the most the admin API lists; a run ends fewer
	}
	// Campaigns are many by the end of a run: they are read when the
	// model's changed, and every 16 steps.
	fp := fmt.Sprint(len(d.m.campaigns))
	for _, c := range d.m.campaigns {
		if !c.Ended() || c.EndedAt.Equal(d.m.now) {
			fp += c.ID + progress(c)
		}
	}
	campaigns := full || d.step%16 == 0 || fp != d.campaignsSeen
	d.campaignsSeen = fp
	// So are chaos rules, which change seldom.
	cfp := fmt.Sprint(len(d.m.rulesInForce()), len(d.m.chaos))
	chaos := full || d.step%16 == 0 || cfp != d.chaosSeen
	d.chaosSeen = cfp
	s, err := d.read(d.w.fab, limit, 0, campaigns, chaos)
	if err != nil {
		return err
	}
	if full || d.step%32 == 0 {
		h, err := d.read(d.w.fleet, limit, 2+d.step%5, true, true)
		if err != nil {
			return fmt.Errorf("admin API: %w", err)
		}
		if err := sameState(h, s); err != nil {
			return fmt.Errorf("the admin API's listings and the fabric's differ: %w", err)
		}
	}
	if full || d.step%64 == 0 {
		if err := d.checkHistoryPages(); err != nil {
			return fmt.Errorf("admin API: %w", err)
		}
	}
	for _, check := range []func(*state) error{
		d.compareScopes, d.compareVMs, d.compareEvents,
		func(s *state) error {
			if !chaos {
				return nil
			}
			return d.compareChaos(s)
		},
		func(s *state) error {
			if !campaigns {
				return nil
			}
			return d.compareCampaigns(s)
		},
		func(s *state) error { return d.compareHistory(s, full) },
		func(s *state) error { return d.checkDocuments(s, full) }, d.checkIncarnations, d.checkPublisher, d.checkStarts, d.checkEnds, d.checkCampaignWalk,
	} {
		if err := check(s); err != nil {
			return err
		}
	}
	return nil
}

// sameState compares two readings of the system by their JSON.
func sameState(a, b *state) error {
	for _, pair := range [][2]any{{a.scopes, b.scopes}, {a.vms, b.vms}, {a.events, b.events},
		{a.campaigns, b.campaigns}, {a.chaos, b.chaos}, {a.history, b.history}} {
		x, _ := json.Marshal(pair[0])
		y, _ := json.Marshal(pair[1])
		if string(x) != string(y) && string(x)+string(y) != "[]null" && string(x)+string(y) != "null[]" {
			return fmt.Errorf("\n  %s\n  %s", x, y)
		}
	}
	return nil
}

// observations are what the invariants remember from step to step.
type observations struct {
	maxInc    map[string]int64  // scope name -> highest incarnation seen
	docAt     map[string]string // scope name@incarnation -> its document
	last      map[string]seenDoc
	scheduled map[string]time.Time // event -> NotBefore while Scheduled
	seen      map[string]bool      // events seen
	walked    map[string]int       // campaign/scope -> update domain of its last event
	walkEvent map[string]string    // campaign/scope -> that event
}

func newObservations() *observations {
	return &observations{maxInc: map[string]int64{}, docAt: map[string]string{}, last: map[string]seenDoc{},
		scheduled: map[string]time.Time{}, seen: map[string]bool{}, walked: map[string]int{}, walkEvent: map[string]string{}}
}
