package admin

import (
	"context"
	"net/http"

	"github.com/forewarn/forewarn"
)

// AddChaos makes the metadata endpoint misbehave for a while and returns
// the rule in force.
func (c *Client) AddChaos(ctx context.Context, spec forewarn.ChaosSpec) (*forewarn.ChaosRule, error) {
	return call[*forewarn.ChaosRule](ctx, c, http.MethodPost, "/v1/chaos", nil, spec)
}

// Chaos lists the chaos rules in force.
func (c *Client) Chaos(ctx context.Context) ([]*forewarn.ChaosRule, error) {
	return call[[]*forewarn.ChaosRule](ctx, c, http.MethodGet, "/v1/chaos", nil, nil)
}

// DeleteChaos ends a chaos rule early.
func (c *Client) DeleteChaos(ctx context.Context, id string) error {
	p, err := itemPath("/v1/chaos", "chaos rule id", id)
	if err != nil {
		return err
	}
	return c.do(ctx, http.MethodDelete, p, nil, nil, nil)
}
