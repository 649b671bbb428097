package fabric

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/forewarn/forewarn"
)

// maxDescription bounds a campaign's description.
const maxDescription = 1024

// StartCampaign starts a rollout of platform maintenance: for each scope,
// one event per update domain, in order, the next only once the previous
// has completed.
func (f *Fabric) StartCampaign(ctx context.Context, spec forewarn.CampaignSpec) (*forewarn.Campaign, error) {
	fresh, err := newCampaign(spec)
	if err != nil {
		return nil, err
	}
	var c *forewarn.Campaign
	err = f.updateCampaigns(ctx, func(t *txn) error {
		c = new(forewarn.Campaign) // each run of fn starts afresh
		*c = *fresh
		c.CreatedAt = t.now
		scopes, err := campaignScopes(t, spec)
		if err != nil {
			return err
		}
		c.Scopes = make([]forewarn.ScopeProgress, 0, len(scopes))
		for _, s := range scopes {
			c.Scopes = append(c.Scopes, forewarn.ScopeProgress{
				Scope: s.Name, UpdateDomains: s.UpdateDomains, NoNotice: !f.enabled(s, t.now)})
		}
		if err := putCampaign(t, c); err != nil {
			return err
		}
		return f.advance(t, c)
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// newCampaign checks a spec and fills in its defaults: the notice is
// raised to the type's minimum.
func newCampaign(spec forewarn.CampaignSpec) (*forewarn.Campaign, error) {
	kind, ok := campaignTypes[spec.Type]
	switch {
	case !ok:
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "invalid type %q: want Freeze, Reboot or Redeploy", spec.Type)
	case !spec.All && len(spec.Scopes) == 0:
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "name the scopes to walk, or all of them")
	case spec.All && len(spec.Scopes) > 0:
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "name the scopes, or all of them, but not both")
	case len(spec.Description) > maxDescription:
		return nil, forewarn.Errorf(forewarn.ErrInvalid,
			"description of %d bytes: at most %d, since every VM's document carries it", len(spec.Description), maxDescription)
	case spec.Notice < 0 || spec.Duration < 0:
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "notice and duration must not be negative")
	case spec.Duration > 0 && spec.Duration < forewarn.Duration(time.Second):
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "invalid duration %s: at least 1s", spec.Duration)
	case spec.ParallelScopes < 0:
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "invalid parallel scopes %d: at least 1", spec.ParallelScopes)
	}
	if spec.ParallelScopes == 0 {
		spec.ParallelScopes = 1
	}
	// The campaign records the notice its events get: at least the type's
	// minimum, which applies when less is asked.
	spec.Notice = forewarn.Duration(noticeOf(spec.Type, nil, time.Duration(spec.Notice)))
	c := &forewarn.Campaign{
		ID:                uuid.NewString(),
		Spec:              spec,
		Description:       kind.description,
		DurationInSeconds: kind.duration,
		State:             forewarn.CampaignRunning,
	}
	if spec.Description != "" {
		c.Description = spec.Description
	}
	if spec.Duration > 0 {
		c.DurationInSeconds = int(time.Duration(spec.Duration) / time.Second)
	}
	return c, nil
}

// campaignScopes returns the scopes a campaign walks, in the order given.
func campaignScopes(t *txn, spec forewarn.CampaignSpec) ([]*forewarn.Scope, error) {
	if spec.All {
		return t.Scopes()
	}
	out := make([]*forewarn.Scope, 0, len(spec.Scopes))
	for _, name := range spec.Scopes {
		s, err := t.Scope(name)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(out, func(o *forewarn.Scope) bool { return forewarn.SameName(o.Name, s.Name) }) {
			return nil, forewarn.Errorf(forewarn.ErrInvalid, "scope %q is named twice", name)
		}
		out = append(out, s)
	}
	return out, nil
}

// Campaigns lists every campaign, newest first.
func (f *Fabric) Campaigns(ctx context.Context) ([]*forewarn.Campaign, error) {
	var out []*forewarn.Campaign
	err := f.view(ctx, func(tx forewarn.Tx) error {
		var err error
		out, err = tx.Campaigns()
		return err
	})
	slices.Reverse(out)
	return out, err
}

// Campaign returns one campaign.
func (f *Fabric) Campaign(ctx context.Context, id string) (*forewarn.Campaign, error) {
	var c *forewarn.Campaign
	err := f.view(ctx, func(tx forewarn.Tx) error {
		var err error
		c, err = tx.Campaign(id)
		return err
	})
	return c, err
}

// SteerCampaign pauses, resumes or cancels a campaign. Each is idempotent:
// pausing a paused campaign, resuming a running one or cancelling a
// cancelled one changes nothing and returns the campaign as it is. A
// campaign that has ended cannot be paused or resumed, nor a done one
// cancelled (ErrConflict).
func (f *Fabric) SteerCampaign(ctx context.Context, id string, action forewarn.CampaignAction) (*forewarn.Campaign, error) {
	switch action {
	case forewarn.PauseCampaign, forewarn.ResumeCampaign, forewarn.CancelCampaign:
	default:
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "invalid action %q: want pause, resume or cancel", action)
	}
	if action == forewarn.CancelCampaign {
		return f.cancelCampaign(ctx, id)
	}
	var c *forewarn.Campaign
	err := f.updateCampaigns(ctx, func(t *txn) error {
		var err error
		if c, err = steerable(t, id, action); err != nil {
			return err
		}
		switch {
		case action == forewarn.PauseCampaign && c.State == forewarn.CampaignPaused,
			action == forewarn.ResumeCampaign && c.State == forewarn.CampaignRunning:
			return nil // already so
		case action == forewarn.PauseCampaign:
			c.State = forewarn.CampaignPaused
			return putCampaign(t, c)
		}
		c.State = forewarn.CampaignRunning
		if err := putCampaign(t, c); err != nil {
			return err
		}
		return f.advance(t, c)
	})
	return c, err
}

// steerable reads a campaign that the action may steer: one that has not
// ended, or for a cancel one already cancelled.
func steerable(t *txn, id string, action forewarn.CampaignAction) (*forewarn.Campaign, error) {
	c, err := t.Campaign(id)
	if err != nil {
		return nil, err
	}
	switch {
	case !c.Ended(), action == forewarn.CancelCampaign && c.State == forewarn.CampaignCancelled:
		return c, nil
	case action == forewarn.CancelCampaign:
		return nil, forewarn.Errorf(forewarn.ErrConflict,
			"campaign %s is %s: it has nothing left to cancel", c.ID, c.State)
	}
	return nil, forewarn.Errorf(forewarn.ErrConflict,
		"campaign %s is %s: an ended campaign cannot be %s", c.ID, c.State, steered[action])
}

// steered says what an action does to a campaign, for messages.
var steered = map[forewarn.CampaignAction]string{
	forewarn.PauseCampaign:  "paused",
	forewarn.ResumeCampaign: "resumed",
}

// cancelCampaign cancels the Scheduled events of a campaign, those that
// have started go on, and marks it cancelled; a campaign already cancelled
// is returned as it is. A campaign over thousands of
// scopes has more events than one etcd transaction takes, so they are
// cancelled a batch of scopes at a time (maxAdvanceBatch, halved while the
// store finds it too large), the campaign paused until the last batch so
// that it schedules nothing meanwhile; most campaigns take one batch.
// Should serve stop halfway, the campaign stays paused with its remaining
// events, and cancelling it again finishes the work.
func (f *Fabric) cancelCampaign(ctx context.Context, id string) (*forewarn.Campaign, error) {
	for batch := 0; ; batch++ {
		var c *forewarn.Campaign
		done := false
		err := f.updateCampaigns(ctx, func(t *txn) error {
			var err error
			if batch > 0 {
				// Paused between batches, it may have ended meanwhile (its
				// last scope deleted): nothing is left to cancel.
				if c, err = t.Campaign(id); err == nil && c.State == forewarn.CampaignDone {
					done = true
					return nil
				}
			}
			if c, err = steerable(t, id, forewarn.CancelCampaign); err != nil {
				return err
			}
			if c.State == forewarn.CampaignCancelled {
				done = true
				return nil
			}
			if done, err = f.cancelBatch(t, c, int(f.advanceBatch.Load())); err != nil {
				return err
			}
			c.State = forewarn.CampaignPaused
			if done {
				c.State = forewarn.CampaignCancelled
				c.EndedAt = t.now
				c.EstimatedEnd = time.Time{}
			}
			return putCampaign(t, c)
		})
		if err != nil || done {
			return c, err
		}
	}
}

// cancelBatch cancels the Scheduled events of up to batch of the
// campaign's scopes and reports whether none is left.
func (f *Fabric) cancelBatch(t *txn, c *forewarn.Campaign, batch int) (done bool, err error) {
	cancelled := 0
	for i := range c.Scopes {
		p := &c.Scopes[i]
		p.Waiting = "" // a cancelled campaign waits for nothing
		if p.Event == "" {
			continue
		}
		e, err := t.Event(p.Event)
		if errors.Is(err, forewarn.ErrNotFound) {
			continue
		} else if err != nil {
			return false, err
		}
		if e.Status != forewarn.Scheduled {
			continue // started: it goes on
		}
		if cancelled == batch {
			return false, nil
		}
		if err := f.end(t, e, forewarn.Cancelled); err != nil { // not cancel: p is the progress to write
			return false, err
		}
		p.Event = ""
		cancelled++
	}
	return true, nil
}
