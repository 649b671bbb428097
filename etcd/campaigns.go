package etcd

import (
	"cmp"
	"slices"

	"github.com/forewarn/forewarn"
)

// Campaign returns the campaign with the id.
func (t *tx) Campaign(id string) (*forewarn.Campaign, error) {
	return get[forewarn.Campaign](t, campaignKind, id)
}

// Campaigns returns every campaign, oldest first: by CreatedAt, then ID.
func (t *tx) Campaigns() ([]*forewarn.Campaign, error) {
	out, err := list(t, campaignKind, func(*forewarn.Campaign) bool { return true })
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b *forewarn.Campaign) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// PutCampaign writes a campaign, replacing the one with the same id.
func (t *tx) PutCampaign(c *forewarn.Campaign) error {
	if c == nil {
		return forewarn.Errorf(forewarn.ErrInvalid, "campaign is nil")
	}
	return put(t, campaignKind, c.ID, c)
}
