package admin

import (
	"context"
	"net/http"

	"github.com/forewarn/forewarn"
)

// Status shows where the state lives, the replicas and the leader.
func (c *Client) Status(ctx context.Context) (*forewarn.Status, error) {
	return call[*forewarn.Status](ctx, c, http.MethodGet, "/v1/status", nil, nil)
}
