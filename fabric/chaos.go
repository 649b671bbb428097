package fabric

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/forewarn/forewarn"
)

// maxChaos bounds how long a fault lasts.
const maxChaos = forewarn.MaxChaosFor

// metaChaos is the meta key of the chaos rules, a JSON list.
const metaChaos = "chaos"

// AddChaos makes the metadata endpoint misbehave for a while.
func (f *Fabric) AddChaos(ctx context.Context, spec forewarn.ChaosSpec) (*forewarn.ChaosRule, error) {
	if spec.Fraction == 0 {
		spec.Fraction = 1 // every request, unless said otherwise
	}
	if err := checkChaos(spec); err != nil {
		return nil, err
	}
	var r *forewarn.ChaosRule
	err := f.updateChaos(ctx, func(t *txn, rules []*forewarn.ChaosRule) ([]*forewarn.ChaosRule, error) {
		if spec.Scope != "" {
			if _, err := t.Scope(spec.Scope); err != nil {
				return nil, err
			}
		}
		if spec.VM != "" {
			if _, err := t.VM(spec.VM); err != nil {
				return nil, err
			}
		}
		r = &forewarn.ChaosRule{ID: uuid.NewString(), ChaosSpec: spec, CreatedAt: t.now,
			Until: t.now.Add(time.Duration(spec.For))}
		return append(rules, r), nil
	})
	return r, err
}

func checkChaos(spec forewarn.ChaosSpec) error {
	switch {
	case spec.Scope != "" && spec.VM != "":
		return forewarn.Errorf(forewarn.ErrInvalid, "name a scope or a VM, not both")
	case spec.Status != 0 && spec.Delay != 0:
		return forewarn.Errorf(forewarn.ErrInvalid, "give a status or a delay, not both")
	case spec.Status == 0 && spec.Delay <= 0:
		return forewarn.Errorf(forewarn.ErrInvalid, "give a status (410, 429 or 500) or a positive delay")
	case spec.Status != 0 && !slices.Contains(forewarn.ChaosStatuses, spec.Status):
		return forewarn.Errorf(forewarn.ErrInvalid, "invalid status %d: want 410, 429 or 500", spec.Status)
	case spec.Delay > forewarn.Duration(forewarn.MaxChaosDelay):
		return forewarn.Errorf(forewarn.ErrInvalid, "invalid delay %s: a fault holds an answer at most %s",
			forewarn.FormatDuration(time.Duration(spec.Delay)), forewarn.FormatDuration(forewarn.MaxChaosDelay))
	case spec.For > forewarn.Duration(maxChaos):
		return forewarn.Errorf(forewarn.ErrInvalid, "invalid duration %s: a fault lasts at most %s",
			forewarn.FormatDuration(time.Duration(spec.For)), forewarn.FormatDuration(maxChaos))
	case !(spec.Fraction > 0 && spec.Fraction <= 1):
		return forewarn.Errorf(forewarn.ErrInvalid, "invalid fraction %g: want more than 0 and at most 1", spec.Fraction)
	case spec.For <= 0:
		return forewarn.Errorf(forewarn.ErrInvalid, "invalid duration %s: a fault lasts more than 0s", spec.For)
	}
	return nil
}

// Chaos lists the chaos rules in force.
func (f *Fabric) Chaos(ctx context.Context) ([]*forewarn.ChaosRule, error) {
	var rules []*forewarn.ChaosRule
	err := f.view(ctx, func(tx forewarn.Tx) error {
		var err error
		rules, err = chaosRules(tx, f.clock.Now())
		return err
	})
	return rules, err
}

// DeleteChaos ends a chaos rule early.
func (f *Fabric) DeleteChaos(ctx context.Context, id string) error {
	return f.updateChaos(ctx, func(_ *txn, rules []*forewarn.ChaosRule) ([]*forewarn.ChaosRule, error) {
		i := slices.IndexFunc(rules, func(r *forewarn.ChaosRule) bool { return strings.EqualFold(r.ID, id) })
		if i < 0 {
			return nil, forewarn.Errorf(forewarn.ErrNotFound, "chaos rule %s not found", id)
		}
		return slices.Delete(rules, i, i+1), nil
	})
}

// updateChaos changes the rules in force; they are published after the
// commit.
func (f *Fabric) updateChaos(ctx context.Context, fn func(*txn, []*forewarn.ChaosRule) ([]*forewarn.ChaosRule, error)) error {
	return f.update(ctx, func(t *txn) error { return changeChaos(t, fn) })
}

// changeChaos is updateChaos in a transaction under way.
func changeChaos(t *txn, fn func(*txn, []*forewarn.ChaosRule) ([]*forewarn.ChaosRule, error)) error {
	current, err := chaosRules(t, t.now)
	if err != nil {
		return err
	}
	rules, err := fn(t, current)
	if err != nil {
		return err
	}
	return putChaos(t, rules)
}

// putChaos stores the rules in force, to be published after the commit.
func putChaos(t *txn, rules []*forewarn.ChaosRule) error {
	b, err := json.Marshal(rules)
	if err != nil {
		return err
	}
	t.changes.chaos = &rules
	return t.PutMeta(metaChaos, b)
}

// dropChaosOf removes the chaos rules of a deleted scope or VM, so that one
// created again under its name starts without them (DESIGN.md, invariant
// 8); it writes nothing if no rule names it.
func dropChaosOf(t *txn, matches func(*forewarn.ChaosRule) bool) error {
	rules, err := chaosRules(t, t.now)
	if err != nil || !slices.ContainsFunc(rules, matches) {
		return err
	}
	return putChaos(t, slices.DeleteFunc(rules, matches))
}

// chaosRules reads the rules still in force at now.
func chaosRules(tx forewarn.Tx, now time.Time) ([]*forewarn.ChaosRule, error) {
	b, err := tx.Meta(metaChaos)
	if err != nil || b == nil {
		return nil, err
	}
	var rules []*forewarn.ChaosRule
	if err := json.Unmarshal(b, &rules); err != nil {
		return nil, fmt.Errorf("decode chaos rules: %w", err)
	}
	return slices.DeleteFunc(rules, func(r *forewarn.ChaosRule) bool { return !now.Before(r.Until) }), nil
}
