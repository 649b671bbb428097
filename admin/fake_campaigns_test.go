package admin_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/forewarn/forewarn"
)

// campaignType is what a campaign of one event type shows by default.
type campaignType struct {
	description string
	duration    int
	notice      time.Duration
}

var campaignTypes = map[forewarn.EventType]campaignType{
	forewarn.Freeze:   {"Virtual machine is being paused because of a memory-preserving Live Migration operation.", 5, 15 * time.Minute},
	forewarn.Reboot:   {"Host server is undergoing maintenance.", -1, 15 * time.Minute},
	forewarn.Redeploy: {"Host server is undergoing maintenance.", -1, 10 * time.Minute},
}

func (f *fakeFleet) StartCampaign(_ context.Context, spec forewarn.CampaignSpec) (*forewarn.Campaign, error) {
	defer f.lock()()
	if f.err != nil {
		return nil, f.err
	}
	ct, ok := campaignTypes[spec.Type]
	if !ok {
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "campaign type %q: use Freeze, Reboot or Redeploy", spec.Type)
	}
	progress, err := f.campaignScopes(spec)
	if err != nil {
		return nil, err
	}
	now := f.tick()
	notice := max(time.Duration(spec.Notice), ct.notice)
	f.nextCampaign++
	c := &forewarn.Campaign{
		ID: fmt.Sprintf("CMP-%04d", f.nextCampaign), Spec: spec,
		Description: cmp(spec.Description, ct.description), DurationInSeconds: ct.duration,
		State: forewarn.CampaignRunning, Scopes: progress, CreatedAt: now,
		EstimatedEnd: now.Add(time.Duration(len(progress)) * 5 * notice),
	}
	if spec.Duration != 0 {
		c.DurationInSeconds = int(time.Duration(spec.Duration) / time.Second)
	}
	f.campaigns[c.ID] = c
	f.campaignOrder = append(f.campaignOrder, c.ID)
	f.changes++
	return cloneCampaign(c), nil
}

// campaignScopes returns the progress of a new campaign, one entry per
// scope it walks.
func (f *fakeFleet) campaignScopes(spec forewarn.CampaignSpec) ([]forewarn.ScopeProgress, error) {
	if spec.All == (len(spec.Scopes) > 0) {
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "name the scopes or all of them, not both or neither")
	}
	names := spec.Scopes
	if spec.All {
		names = sortedKeys(f.scopes)
	}
	var progress []forewarn.ScopeProgress
	for _, name := range names {
		s, ok := f.scopes[key(name)]
		if !ok {
			return nil, forewarn.Errorf(forewarn.ErrNotFound, "scope %q not found", name)
		}
		progress = append(progress, forewarn.ScopeProgress{
			Scope: s.Name, UpdateDomains: s.UpdateDomains, NoNotice: s.EnabledAt.IsZero(),
		})
	}
	return progress, nil
}

func cloneCampaign(c *forewarn.Campaign) *forewarn.Campaign {
	out := clone(c)
	out.Spec.Scopes = slices.Clone(c.Spec.Scopes)
	out.Scopes = slices.Clone(c.Scopes)
	return out
}

func (f *fakeFleet) Campaigns(context.Context) ([]*forewarn.Campaign, error) {
	defer f.lock()()
	if f.err != nil {
		return nil, f.err
	}
	var out []*forewarn.Campaign
	for _, id := range slices.Backward(f.campaignOrder) {
		out = append(out, cloneCampaign(f.campaigns[id]))
	}
	return out, nil
}

func (f *fakeFleet) Campaign(_ context.Context, id string) (*forewarn.Campaign, error) {
	defer f.lock()()
	if f.err != nil {
		return nil, f.err
	}
	c, ok := f.campaigns[id]
	if !ok {
		return nil, forewarn.Errorf(forewarn.ErrNotFound, "campaign %q not found", id)
	}
	return cloneCampaign(c), nil
}

func (f *fakeFleet) SteerCampaign(_ context.Context, id string, action forewarn.CampaignAction) (*forewarn.Campaign, error) {
	defer f.lock()()
	if f.err != nil {
		return nil, f.err
	}
	c, ok := f.campaigns[id]
	if !ok {
		return nil, forewarn.Errorf(forewarn.ErrNotFound, "campaign %q not found", id)
	}
	switch {
	case action == forewarn.CancelCampaign && c.State == forewarn.CampaignCancelled,
		action == forewarn.PauseCampaign && c.State == forewarn.CampaignPaused,
		action == forewarn.ResumeCampaign && c.State == forewarn.CampaignRunning:
		return cloneCampaign(c), nil // as the fabric: already so, no change
	case c.State == forewarn.CampaignCancelled || c.State == forewarn.CampaignDone:
		return nil, forewarn.Errorf(forewarn.ErrConflict, "campaign %s has ended (%s)", id, c.State)
	}
	switch action {
	case forewarn.PauseCampaign:
		c.State = forewarn.CampaignPaused
	case forewarn.ResumeCampaign:
		c.State = forewarn.CampaignRunning
	case forewarn.CancelCampaign:
		c.State, c.EndedAt, c.EstimatedEnd = forewarn.CampaignCancelled, f.tick(), time.Time{}
	default:
		return nil, forewarn.Errorf(forewarn.ErrInvalid, "unknown campaign action %q", action)
	}
	f.changes++
	return cloneCampaign(c), nil
}
