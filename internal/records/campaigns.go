package records

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

	"github.com/segmentio/encoding/json"

	"github.com/forewarn/forewarn"
)

// A campaign is stored as three kinds of record, so that every write costs
// what changed, not the campaign, and none exceeds a bound on the writes
// of a transaction (etcd's --max-txn-ops) however many scopes it walks:
//
//   - its record (Campaigns), without its progress: written when its
//     state, or its estimated end, changes;
//   - its plan (CampaignPlans): the scopes it walks, in order, with their
//     update domains, written once when it starts;
//   - the progress of each scope (CampaignScopes) that has moved from where
//     the plan has it (no update domain done, nothing in flight), written
//     when it moves.

// planned is a scope of a campaign's plan: where its progress starts.
type planned struct {
	Scope         string `json:"scope"`
	UpdateDomains int    `json:"updateDomains"`
}

// start returns the progress of a planned scope before the campaign moves.
func (p planned) start() forewarn.ScopeProgress {
	return forewarn.ScopeProgress{Scope: p.Scope, UpdateDomains: p.UpdateDomains}
}

// Campaign returns the campaign with the id.
func (t Tx) Campaign(id string) (*forewarn.Campaign, error) {
	c, err := get[forewarn.Campaign](t, Campaigns, id)
	if err != nil {
		return nil, err
	}
	return c, t.readProgress(c)
}

// Campaigns returns every campaign, oldest first: by CreatedAt, then ID.
func (t Tx) Campaigns() ([]*forewarn.Campaign, error) {
	out, err := t.CampaignHeaders()
	if err != nil {
		return nil, err
	}
	for _, c := range out {
		if err := t.readProgress(c); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// CampaignHeaders returns every campaign without its progress, oldest
// first: by CreatedAt, then ID.
func (t Tx) CampaignHeaders() ([]*forewarn.Campaign, error) {
	out, err := all(func(fn func(*forewarn.Campaign) bool) error { return scan(t, Campaigns, "", fn) })
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b *forewarn.Campaign) int { return oldestFirst(a.CreatedAt, a.ID, b.CreatedAt, b.ID) })
	return out, nil
}

// PutCampaign writes a campaign, replacing the one with the same id. It
// writes only the records that changed: a new campaign's record and plan,
// then the record when its state changes and the progress of each scope
// that moved.
func (t Tx) PutCampaign(c *forewarn.Campaign) error {
	if c == nil {
		return forewarn.Errorf(forewarn.ErrInvalid, "campaign is nil")
	}
	if c.ID == "" {
		return forewarn.Errorf(forewarn.ErrInvalid, "%s has no name", Campaigns)
	}
	if err := t.putCampaign(c); err != nil {
		return fmt.Errorf("put %s %q: %w", Campaigns, c.ID, err)
	}
	return nil
}

func (t Tx) putCampaign(c *forewarn.Campaign) error {
	if was, ok := t.progress[key(c.ID)]; ok && samePlan(was, c.Scopes) {
		if err := t.putMoved(c, was); err != nil {
			return err
		}
	} else if err := t.putPlanAndProgress(c); err != nil {
		return err
	}
	t.remember(c)
	head := *c
	head.Scopes = nil
	old, _, err := t.Raw.RawGet(Campaigns, key(c.ID))
	if err != nil {
		return err
	}
	return putIfChanged(t, Campaigns, key(c.ID), old, head)
}

// putMoved writes the progress of the scopes of a campaign that moved
// since the transaction read it (was), with the same plan.
func (t Tx) putMoved(c *forewarn.Campaign, was []forewarn.ScopeProgress) error {
	for i, p := range c.Scopes {
		if sameProgress(p, was[i]) {
			continue
		}
		k := CampaignScopeKey(c.ID, i)
		data, moved, err := encodeProgress(p)
		if err != nil {
			return err
		}
		if !moved { // back at its start: the plan says it
			if _, err := t.Raw.RawDelete(CampaignScopes, k); err != nil {
				return err
			}
			continue
		}
		if err := t.Raw.RawPut(CampaignScopes, k, data); err != nil {
			return err
		}
	}
	return nil
}

// remember notes a campaign's progress as the transaction knows it now.
func (t Tx) remember(c *forewarn.Campaign) {
	if t.progress == nil {
		return
	}
	was := slices.Clone(c.Scopes)
	for i := range was {
		was[i].Skipped = slices.Clone(was[i].Skipped)
	}
	t.progress[key(c.ID)] = was
}

// samePlan reports whether two campaigns' progress walks the same scopes.
func samePlan(a, b []forewarn.ScopeProgress) bool {
	return slices.EqualFunc(a, b, func(a, b forewarn.ScopeProgress) bool {
		return a.Scope == b.Scope && a.UpdateDomains == b.UpdateDomains
	})
}

// sameProgress reports whether two progresses of a scope are the same.
func sameProgress(a, b forewarn.ScopeProgress) bool {
	return a.Scope == b.Scope && a.UpdateDomains == b.UpdateDomains && a.Done == b.Done &&
		a.Event == b.Event && a.Waiting == b.Waiting && a.NoNotice == b.NoNotice &&
		slices.Equal(a.Skipped, b.Skipped)
}

// putPlanAndProgress writes a campaign's plan if it changed, and the
// progress of every scope that differs from what is stored.
func (t Tx) putPlanAndProgress(c *forewarn.Campaign) error {
	plan := make([]planned, len(c.Scopes))
	for i, p := range c.Scopes {
		plan[i] = planned{p.Scope, p.UpdateDomains}
	}
	old, _, err := t.Raw.RawGet(CampaignPlans, key(c.ID))
	if err != nil {
		return err
	}
	if err := putIfChanged(t, CampaignPlans, key(c.ID), old, plan); err != nil {
		return err
	}
	stored, err := t.storedProgress(c.ID)
	if err != nil {
		return err
	}
	for i, p := range c.Scopes {
		k := CampaignScopeKey(c.ID, i)
		data, moved, err := encodeProgress(p)
		if err != nil {
			return err
		}
		switch old, wasMoved := stored[k]; {
		case !moved && wasMoved: // back at its start: the plan says it
			if _, err := t.Raw.RawDelete(CampaignScopes, k); err != nil {
				return err
			}
		case moved && !bytes.Equal(data, old):
			if err := t.Raw.RawPut(CampaignScopes, k, data); err != nil {
				return err
			}
		}
		delete(stored, k)
	}
	for k := range stored { // beyond the scopes: the campaign has fewer
		if _, err := t.Raw.RawDelete(CampaignScopes, k); err != nil {
			return err
		}
	}
	return nil
}

// encodeProgress returns the JSON of a scope's progress, and whether it moved
// from its start.
func encodeProgress(p forewarn.ScopeProgress) (data []byte, moved bool, err error) {
	data, err = json.Marshal(p)
	if err != nil {
		return nil, false, fmt.Errorf("encode the progress of scope %q: %w", p.Scope, err)
	}
	return data, !sameProgress(p, planned{p.Scope, p.UpdateDomains}.start()), nil
}

// CampaignScopeKey is the key of the progress of a campaign's scope i:
// zero-padded, so that a campaign's keys sort in the order of its scopes.
func CampaignScopeKey(id string, i int) string { return fmt.Sprintf("%s/%08d", key(id), i) }

// readProgress reads the progress of a campaign's scopes into it: its
// plan, and the progress of the scopes that moved. A campaign without a
// plan walks no scope.
func (t Tx) readProgress(c *forewarn.Campaign) error {
	c.Scopes = nil
	data, found, err := t.Raw.RawGet(CampaignPlans, key(c.ID))
	if err != nil || !found {
		if err != nil {
			err = fmt.Errorf("read %s %q: %w", Campaigns, c.ID, err)
		}
		return err
	}
	var plan []planned
	if err := json.Unmarshal(data, &plan); err != nil {
		return fmt.Errorf("decode the plan of %s %q: %w", Campaigns, c.ID, err)
	}
	c.Scopes = make([]forewarn.ScopeProgress, len(plan))
	for i, p := range plan {
		c.Scopes[i] = p.start()
	}
	prefix := key(c.ID) + "/"
	err = t.Raw.RawScan(CampaignScopes, prefix, "", func(k string, data []byte) (bool, error) {
		i, err := strconv.Atoi(k[len(prefix):])
		if err != nil || i < 0 || i >= len(plan) {
			return false, fmt.Errorf("progress %q is not one of its %d scopes", k, len(plan))
		}
		return true, json.Unmarshal(data, &c.Scopes[i])
	})
	if err != nil {
		return fmt.Errorf("read %s %q: %w", Campaigns, c.ID, err)
	}
	t.remember(c)
	return nil
}

// storedProgress returns the JSON of the stored progress of a campaign's
// scopes, by key.
func (t Tx) storedProgress(id string) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := t.Raw.RawScan(CampaignScopes, key(id)+"/", "", func(k string, data []byte) (bool, error) {
		out[k] = slices.Clone(data)
		return true, nil
	})
	return out, err
}

// putIfChanged writes v under key unless old is already its JSON.
func putIfChanged(t Tx, k Kind, key string, old []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s %q: %w", k, key, err)
	}
	if bytes.Equal(data, old) {
		return nil
	}
	return t.Raw.RawPut(k, key, data)
}

// SplitCampaign returns the records of a campaign stored whole, as schemas
// 1 and 2 stored it: the progress of each scope that moved (see
// PutCampaign), its plan, and last its record without its progress. It
// returns none for a record without progress: one split already (or that
// walks no scope), so that an upgrade cut short can be done again.
func SplitCampaign(name string, data []byte) ([]Entry, error) {
	c, err := decode[forewarn.Campaign](Campaigns, name, data)
	if err != nil || len(c.Scopes) == 0 {
		return nil, err
	}
	var out []Entry
	plan := make([]planned, len(c.Scopes))
	for i, p := range c.Scopes {
		plan[i] = planned{p.Scope, p.UpdateDomains}
		pdata, moved, err := encodeProgress(p)
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", Campaigns, name, err)
		}
		if moved {
			out = append(out, Entry{CampaignScopes, CampaignScopeKey(c.ID, i), string(pdata)})
		}
	}
	pdata, err := json.Marshal(plan)
	if err != nil {
		return nil, fmt.Errorf("encode %s %q: %w", Campaigns, name, err)
	}
	c.Scopes = nil
	head, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("encode %s %q: %w", Campaigns, name, err)
	}
	return append(out, Entry{CampaignPlans, key(c.ID), string(pdata)}, Entry{Campaigns, key(c.ID), string(head)}), nil
}
