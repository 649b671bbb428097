package admin

import (
	"context"
	"net/http"
	"time"

	"github.com/forewarn/forewarn"
)

// Fail creates a hardware failure of a VM: a Platform Reboot that is
// Started from its first appearance.
func (c *Client) Fail(ctx context.Context, vm string) (*forewarn.Event, error) {
	p, err := itemPath("/v1/vms", "VM name", vm)
	if err != nil {
		return nil, err
	}
	return call[*forewarn.Event](ctx, c, http.MethodPost, p+"/fail", nil, nil)
}

// Degrade schedules a Platform Redeploy of a VM for degraded hardware with
// the given notice; zero means forewarn.DefaultDegradeNotice.
func (c *Client) Degrade(ctx context.Context, vm string, notice time.Duration) (*forewarn.Event, error) {
	p, err := itemPath("/v1/vms", "VM name", vm)
	if err != nil {
		return nil, err
	}
	if err := checkNotice(forewarn.Duration(notice)); err != nil {
		return nil, err
	}
	var in any
	if notice != 0 {
		in = degradeRequest{Notice: forewarn.Duration(notice)}
	}
	return call[*forewarn.Event](ctx, c, http.MethodPost, p+"/degrade", nil, in)
}

// Resolve settles a started event whose actuation failed on some VMs.
func (c *Client) Resolve(ctx context.Context, id string, r forewarn.Resolution) (*forewarn.Event, error) {
	p, err := itemPath("/v1/events", "event id", id)
	if err != nil {
		return nil, err
	}
	if err := checkResolveAction(r.Action); err != nil {
		return nil, err
	}
	return call[*forewarn.Event](ctx, c, http.MethodPost, p+"/resolve", nil, r)
}

// StartCampaign starts a rollout of platform maintenance.
func (c *Client) StartCampaign(ctx context.Context, spec forewarn.CampaignSpec) (*forewarn.Campaign, error) {
	return call[*forewarn.Campaign](ctx, c, http.MethodPost, "/v1/campaigns", nil, spec)
}

// Campaigns lists every campaign, newest first.
func (c *Client) Campaigns(ctx context.Context) ([]*forewarn.Campaign, error) {
	return call[[]*forewarn.Campaign](ctx, c, http.MethodGet, "/v1/campaigns", nil, nil)
}

// Campaign returns one campaign with its progress.
func (c *Client) Campaign(ctx context.Context, id string) (*forewarn.Campaign, error) {
	p, err := itemPath("/v1/campaigns", "campaign id", id)
	if err != nil {
		return nil, err
	}
	return call[*forewarn.Campaign](ctx, c, http.MethodGet, p, nil, nil)
}

// SteerCampaign pauses, resumes or cancels a campaign.
func (c *Client) SteerCampaign(ctx context.Context, id string, action forewarn.CampaignAction) (*forewarn.Campaign, error) {
	p, err := itemPath("/v1/campaigns", "campaign id", id)
	if err != nil {
		return nil, err
	}
	if err := checkCampaignAction(action); err != nil {
		return nil, err
	}
	return call[*forewarn.Campaign](ctx, c, http.MethodPost, p+"/"+string(action), nil, nil)
}
