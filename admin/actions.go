package admin

import (
	"slices"

	"github.com/forewarn/forewarn"
)

// degradeRequest is the optional body of POST /v1/vms/{name}/degrade.
type degradeRequest struct {
	// Notice is the notice of the Redeploy; zero (or absent) means
	// forewarn.DefaultDegradeNotice.
	Notice forewarn.Duration `json:"notice,omitempty"`
}

// resolveActions are the actions of POST /v1/events/{id}/resolve.
var resolveActions = []forewarn.ResolveAction{forewarn.ResolveComplete, forewarn.ResolveRetry}

// campaignActions are the actions of POST /v1/campaigns/{id}/{action}.
var campaignActions = []forewarn.CampaignAction{
	forewarn.PauseCampaign, forewarn.ResumeCampaign, forewarn.CancelCampaign,
}

// checkNotice refuses a negative notice of a degraded-hardware event.
func checkNotice(notice forewarn.Duration) error {
	if notice < 0 {
		return invalid("notice must not be negative (got %s)", notice)
	}
	return nil
}

// checkResolveAction refuses a missing or unknown resolve action.
func checkResolveAction(action forewarn.ResolveAction) error {
	if action == "" {
		return invalid("field \"action\" is missing: use %s", forewarn.OneOf(resolveActions))
	}
	if !slices.Contains(resolveActions, action) {
		return invalid("unknown action %q: use %s", action, forewarn.OneOf(resolveActions))
	}
	return nil
}

// checkCampaignAction refuses an unknown campaign action.
func checkCampaignAction(action forewarn.CampaignAction) error {
	if !slices.Contains(campaignActions, action) {
		return unknownCampaignAction(forewarn.ErrInvalid, string(action))
	}
	return nil
}

// unknownCampaignAction says which campaign actions there are, as an error
// of the given kind: ErrNotFound for a path, ErrInvalid for an argument.
func unknownCampaignAction(kind error, action string) error {
	return forewarn.Errorf(kind, "unknown campaign action %q: use %s", action, forewarn.OneOf(campaignActions))
}
