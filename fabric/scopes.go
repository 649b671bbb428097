package fabric

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/forewarn/forewarn"
	"github.com/forewarn/forewarn/internal/plural"
)

// CreateScope creates a scope, its incarnation at 1, and returns it as
// Scope would read it: Enabled says whether it gets notice now (with
// AlwaysEnabled, at once).
func (f *Fabric) CreateScope(ctx context.Context, spec forewarn.ScopeSpec) (*forewarn.Scope, error) {
	s, err := newScope(spec)
	if err != nil {
		return nil, err
	}
	err = f.update(ctx, func(t *txn) error {
		s.CreatedAt = t.now
		return putNewScope(t, s)
	})
	if err != nil {
		return nil, err
	}
	f.enabling.overlay(s)
	s.Enabled = f.enabled(s, f.clock.Now())
	return s, nil
}

// newScope checks a spec and fills in its defaults.
func newScope(spec forewarn.ScopeSpec) (*forewarn.Scope, error) {
	s := &forewarn.Scope{
		Name:            spec.Name,
		Kind:            spec.Kind,
		UpdateDomains:   spec.UpdateDomains,
		FaultDomains:    spec.FaultDomains,
		TerminateNotice: spec.TerminateNotice,
		Incarnation:     1,
	}
	if s.Kind == "" {
		s.Kind = forewarn.AvailabilitySet
	}
	if s.UpdateDomains == 0 {
		s.UpdateDomains = forewarn.DefaultUpdateDomains
	}
	if s.FaultDomains == 0 {
		s.FaultDomains = forewarn.DefaultFaultDomains
	}
	if s.TerminateNotice == 0 {
		s.TerminateNotice = forewarn.Duration(forewarn.DefaultTerminateNotice)
	}
	return s, checkScope(s)
}

func checkScope(s *forewarn.Scope) error {
	switch {
	case !forewarn.ValidName(s.Name):
		return forewarn.Errorf(forewarn.ErrInvalid,
			"invalid scope name %q: want 1-64 letters, digits, '-', '_' or '.'", s.Name)
	case s.Kind != forewarn.AvailabilitySet && s.Kind != forewarn.ScaleSet && s.Kind != forewarn.CloudService:
		return forewarn.Errorf(forewarn.ErrInvalid,
			"invalid scope kind %q: want availability-set, scale-set or cloud-service", s.Kind)
	case s.UpdateDomains < 1 || s.UpdateDomains > forewarn.MaxUpdateDomains:
		return forewarn.Errorf(forewarn.ErrInvalid,
			"invalid update domain count %d: want 1 to %d", s.UpdateDomains, forewarn.MaxUpdateDomains)
	case s.FaultDomains < 1 || s.FaultDomains > forewarn.MaxFaultDomains:
		return forewarn.Errorf(forewarn.ErrInvalid,
			"invalid fault domain count %d: want 1 to %d", s.FaultDomains, forewarn.MaxFaultDomains)
	case !forewarn.ValidTerminateNotice(time.Duration(s.TerminateNotice)):
		return forewarn.Errorf(forewarn.ErrInvalid,
			"invalid terminate notice %s: want 5m to 15m", s.TerminateNotice)
	}
	return nil
}

// putNewScope stores a scope whose name must not be taken. A scope of a
// name that was deleted goes on from the incarnation it had, so that a VM
// that kept its address never sees the incarnation go down.
func putNewScope(t *txn, s *forewarn.Scope) error {
	if _, err := t.Scope(s.Name); err == nil {
		return forewarn.Errorf(forewarn.ErrConflict, "scope %q already exists", s.Name)
	} else if !errors.Is(err, forewarn.ErrNotFound) {
		return err
	}
	last, err := t.Meta(incarnationKey(s.Name))
	if err != nil {
		return err
	}
	if n, err := strconv.ParseInt(string(last), 10, 64); err == nil && n >= s.Incarnation {
		s.Incarnation = n + 1
	}
	if err := t.PutScope(s); err != nil {
		return err
	}
	t.touch(s.Name)
	return nil
}

// Scopes lists every scope, with the last request seen in memory.
func (f *Fabric) Scopes(ctx context.Context) ([]*forewarn.Scope, error) {
	var scopes []*forewarn.Scope
	err := f.view(ctx, func(tx forewarn.Tx) error {
		var err error
		scopes, err = tx.Scopes()
		return err
	})
	now := f.clock.Now()
	for _, s := range scopes {
		f.enabling.overlay(s)
		s.Enabled = f.enabled(s, now)
	}
	return scopes, err
}

// Scope returns one scope.
func (f *Fabric) Scope(ctx context.Context, name string) (*forewarn.Scope, error) {
	var s *forewarn.Scope
	err := f.view(ctx, func(tx forewarn.Tx) error {
		var err error
		s, err = tx.Scope(name)
		return err
	})
	if err != nil {
		return nil, err
	}
	f.enabling.overlay(s)
	s.Enabled = f.enabled(s, f.clock.Now())
	return s, nil
}

// DeleteScope deletes a scope that has no VMs.
func (f *Fabric) DeleteScope(ctx context.Context, name string) error {
	return f.update(ctx, func(t *txn) error {
		s, err := t.Scope(name)
		if err != nil {
			return err
		}
		vms, err := t.VMs(s.Name)
		if err != nil {
			return err
		}
		if len(vms) > 0 {
			return forewarn.Errorf(forewarn.ErrConflict,
				"scope %q still has %s: delete them first", s.Name, plural.Count(len(vms), "VM", "VMs"))
		}
		return deleteScope(t, s)
	})
}

// deleteScope deletes a scope and keeps its last incarnation. What else
// names it goes with it: the campaigns walking it skip the rest of it, and
// its chaos rules end, so that a scope created again under its name starts
// anew (DESIGN.md, invariant 8).
func deleteScope(t *txn, s *forewarn.Scope) error {
	if err := t.PutMeta(incarnationKey(s.Name), []byte(strconv.FormatInt(s.Incarnation, 10))); err != nil {
		return err
	}
	if err := t.DeleteScope(s.Name); err != nil {
		return err
	}
	t.scopeDeleted(s.Name)
	if err := dropChaosOf(t, func(r *forewarn.ChaosRule) bool { return forewarn.SameName(r.Scope, s.Name) }); err != nil {
		return err
	}
	return leaveScope(t, s.Name)
}

// leaveScope marks the rest of a deleted scope skipped in every campaign
// walking it.
func leaveScope(t *txn, scope string) error {
	campaigns, err := t.Campaigns()
	if err != nil {
		return err
	}
	for _, c := range campaigns {
		i := slices.IndexFunc(c.Scopes, func(p forewarn.ScopeProgress) bool { return forewarn.SameName(p.Scope, scope) })
		if c.Ended() || i < 0 || c.Scopes[i].Finished() {
			continue
		}
		if _, err := settle(t, &c.Scopes[i]); err != nil {
			return err
		}
		skipRest(&c.Scopes[i], "the scope was deleted")
		if err := putCampaign(t, c); err != nil {
			return err
		}
	}
	return nil
}

// incarnationKey is the meta key of a deleted scope's last incarnation.
func incarnationKey(scope string) string {
	return "last-incarnation/" + string(forewarn.KeyOf(scope))
}
