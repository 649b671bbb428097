package records

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/segmentio/encoding/json"

	"github.com/forewarn/forewarn"
)

// Scope returns the scope named name.
func (t Tx) Scope(name string) (*forewarn.Scope, error) { return get[forewarn.Scope](t, Scopes, name) }

// Scopes returns every scope, ordered by name case-insensitively.
func (t Tx) Scopes() ([]*forewarn.Scope, error) {
	return all(func(fn func(*forewarn.Scope) bool) error { return scan(t, Scopes, "", fn) })
}

// PutScope writes a scope, replacing the one of the same name.
func (t Tx) PutScope(s *forewarn.Scope) error {
	if s == nil {
		return forewarn.Errorf(forewarn.ErrInvalid, "scope is nil")
	}
	return put(t, Scopes, s.Name, s)
}

// DeleteScope deletes the scope named name.
func (t Tx) DeleteScope(name string) error { return del(t, Scopes, name) }

// VM returns the VM named name.
func (t Tx) VM(name string) (*forewarn.VM, error) { return get[forewarn.VM](t, VMs, name) }

// VMs returns the VMs of scope, or all if scope is "", ordered by name
// case-insensitively.
func (t Tx) VMs(scope string) ([]*forewarn.VM, error) {
	return all(func(fn func(*forewarn.VM) bool) error { return t.ScanVMs(scope, "", fn) })
}

// ScanVMs calls fn with the VMs of scope, or of every scope if scope is "",
// in name order, beginning after the name after, until fn returns false. A
// scope's VMs are found through its index.
func (t Tx) ScanVMs(scope, after string, fn func(*forewarn.VM) bool) error {
	if scope == "" {
		return scan(t, VMs, after, fn)
	}
	return scanIndex(t, VMsByScope, VMs, scope, after, fn)
}

// VMsAt returns the VMs that have the address, ordered by name.
func (t Tx) VMsAt(address string) ([]*forewarn.VM, error) {
	return all(func(fn func(*forewarn.VM) bool) error {
		return scanIndex(t, VMsByAddress, VMs, address, "", fn)
	})
}

// PutVM writes a VM, replacing the one of the same name, and indexes it
// under its scope and addresses.
func (t Tx) PutVM(vm *forewarn.VM) error {
	if vm == nil {
		return forewarn.Errorf(forewarn.ErrInvalid, "VM is nil")
	}
	return putIndexed(t, VMs, VMsByScope, vm.Name, vm, &indexed{Scope: vm.Scope, Addresses: vm.Addresses})
}

// DeleteVM deletes the VM named name.
func (t Tx) DeleteVM(name string) error { return delIndexed(t, VMs, VMsByScope, name) }

// Event returns the event in flight with the id.
func (t Tx) Event(id string) (*forewarn.Event, error) { return get[forewarn.Event](t, Events, id) }

// Events returns the events in flight of scope, or all if scope is "",
// oldest first: by CreatedAt, then by ID.
func (t Tx) Events(scope string) ([]*forewarn.Event, error) {
	events, err := all(func(fn func(*forewarn.Event) bool) error {
		if scope == "" {
			return scan(t, Events, "", fn)
		}
		return scanIndex(t, EventsByScope, Events, scope, "", fn)
	})
	slices.SortFunc(events, func(a, b *forewarn.Event) int { return oldestFirst(a.CreatedAt, a.ID, b.CreatedAt, b.ID) })
	return events, err
}

// PutEvent writes an event in flight, replacing the one with the same id.
func (t Tx) PutEvent(e *forewarn.Event) error {
	if e == nil {
		return forewarn.Errorf(forewarn.ErrInvalid, "event is nil")
	}
	return putIndexed(t, Events, EventsByScope, e.ID, e, &indexed{Scope: e.Scope})
}

// DeleteEvent deletes the event in flight with the id.
func (t Tx) DeleteEvent(id string) error { return delIndexed(t, Events, EventsByScope, id) }

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

// PutCampaign writes a campaign, replacing the one with the same id: its
// record, without its progress, and the progress of each scope, each in a
// record of its own. It writes only the records that changed, so that a
// campaign over thousands of scopes costs the scopes that moved.
func (t Tx) PutCampaign(c *forewarn.Campaign) error {
	if c == nil {
		return forewarn.Errorf(forewarn.ErrInvalid, "campaign is nil")
	}
	if c.ID == "" {
		return forewarn.Errorf(forewarn.ErrInvalid, "%s has no name", Campaigns)
	}
	stored, err := t.storedProgress(c.ID)
	if err != nil {
		return fmt.Errorf("put %s %q: %w", Campaigns, c.ID, err)
	}
	for i, p := range c.Scopes {
		var old []byte
		if i < len(stored) {
			old = stored[i]
		}
		if err := putIfChanged(t, CampaignScopes, CampaignScopeKey(c.ID, i), old, p); err != nil {
			return fmt.Errorf("put %s %q: %w", Campaigns, c.ID, err)
		}
	}
	for i := len(c.Scopes); i < len(stored); i++ {
		if _, err := t.Raw.RawDelete(CampaignScopes, CampaignScopeKey(c.ID, i)); err != nil {
			return fmt.Errorf("put %s %q: %w", Campaigns, c.ID, err)
		}
	}
	head := *c
	head.Scopes = nil
	old, _, err := t.Raw.RawGet(Campaigns, key(c.ID))
	if err != nil {
		return fmt.Errorf("put %s %q: %w", Campaigns, c.ID, err)
	}
	if err := putIfChanged(t, Campaigns, key(c.ID), old, head); err != nil {
		return fmt.Errorf("put %s %q: %w", Campaigns, c.ID, err)
	}
	return nil
}

// CampaignScopeKey is the key of the progress of a campaign's scope i:
// zero-padded, so that a campaign's keys sort in the order of its scopes.
func CampaignScopeKey(id string, i int) string { return fmt.Sprintf("%s/%08d", key(id), i) }

// readProgress reads the progress of a campaign's scopes into it.
func (t Tx) readProgress(c *forewarn.Campaign) error {
	c.Scopes = nil
	err := t.Raw.RawScan(CampaignScopes, key(c.ID)+"/", "", func(k string, data []byte) (bool, error) {
		p, err := decode[forewarn.ScopeProgress](CampaignScopes, k, data)
		if err != nil {
			return false, err
		}
		c.Scopes = append(c.Scopes, *p)
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("read %s %q: %w", Campaigns, c.ID, err)
	}
	return nil
}

// storedProgress returns the JSON of the stored progress of a campaign's
// scopes, in order.
func (t Tx) storedProgress(id string) ([][]byte, error) {
	var out [][]byte
	err := t.Raw.RawScan(CampaignScopes, key(id)+"/", "", func(_ string, data []byte) (bool, error) {
		out = append(out, slices.Clone(data))
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

func oldestFirst(ta time.Time, ia string, tb time.Time, ib string) int {
	return cmp.Or(ta.Compare(tb), cmp.Compare(ia, ib))
}

// SplitCampaign returns the records of a campaign stored whole, as schemas
// 1 and 2 stored it: its record without its progress, and the progress of
// each scope under its key (CampaignScopeKey), in order.
func SplitCampaign(name string, data []byte) (head []byte, scopes []Entry, err error) {
	c, err := decode[forewarn.Campaign](Campaigns, name, data)
	if err != nil {
		return nil, nil, err
	}
	for i, p := range c.Scopes {
		pdata, err := json.Marshal(p)
		if err != nil {
			return nil, nil, fmt.Errorf("encode %s %q: %w", Campaigns, name, err)
		}
		scopes = append(scopes, Entry{CampaignScopes, CampaignScopeKey(c.ID, i), string(pdata)})
	}
	c.Scopes = nil
	if head, err = json.Marshal(c); err != nil {
		return nil, nil, fmt.Errorf("encode %s %q: %w", Campaigns, name, err)
	}
	return head, scopes, nil
}
